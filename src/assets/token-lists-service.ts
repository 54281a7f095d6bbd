/**
 * The Token Lists refresh (job asset-token-lists-refresh): fetch each operator-configured list
 * through safeFetch (SSRF guard, deadline, size cap), validate it against the token-lists fields the
 * registry reads, and add what it brings (rules/token-lists.ts) in one transaction per list.
 *
 * A list that fails (network, time-out, too large, not JSON, not a token list, a non-2xx answer)
 * changes nothing; the lists that passed are applied; then the run fails naming every list that did
 * not, as a PermanentJobError when no retry can fix any of them (invalid content, too large, a
 * refused address, a 4xx), else as a plain error that the queue retries.
 */
import type { Db } from '../platform/db.js';
import { PermanentJobError } from '../platform/errors/permanent-job-error.js';
import { safeFetch, SafeFetchError } from '../platform/safe-fetch.js';
import type { AssetRegistry } from './registry-cache.js';
import { diffTokenList, tokenListSchema, type TokenList } from './rules/token-lists.js';
import { insertDeploymentRows, insertListAssets, loadRegistry } from './queries.js';

const TOKEN_LIST_TIMEOUT_MS = 15_000;
const TOKEN_LIST_MAX_BYTES = 10 * 1024 * 1024;

const PERMANENT_FETCH: ReadonlySet<string> = new Set(['invalid_url', 'blocked_address', 'bad_redirect', 'too_many_redirects', 'too_large', 'bad_content_type']);

export class TokenListFailure extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
    readonly permanent: boolean,
  ) {
    super(`${url}: ${reason}`);
  }
}

interface FetchOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

async function fetchBody(url: string, opts: FetchOptions): Promise<string> {
  let res;
  try {
    res = await safeFetch(url, {
      allowPrivate: opts.allowPrivate,
      timeoutMs: opts.timeoutMs ?? TOKEN_LIST_TIMEOUT_MS,
      maxBytes: opts.maxBytes ?? TOKEN_LIST_MAX_BYTES,
      headers: { accept: 'application/json' },
    });
  } catch (err) {
    if (err instanceof SafeFetchError) throw new TokenListFailure(url, err.code, PERMANENT_FETCH.has(err.code));
    throw new TokenListFailure(url, err instanceof Error ? err.message : String(err), false);
  }
  if (res.status < 200 || res.status >= 300) {
    const transient = res.status >= 500 || res.status === 408 || res.status === 429;
    throw new TokenListFailure(url, `http_${res.status}`, !transient);
  }
  return res.text();
}

/** Fetch and validate one token list; a TokenListFailure says why not. */
async function fetchTokenList(url: string, opts: FetchOptions): Promise<TokenList> {
  const body = await fetchBody(url, opts);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new TokenListFailure(url, 'invalid_json', true);
  }
  const parsed = tokenListSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TokenListFailure(url, `invalid_token_list: ${issue.path.join('.') || '(root)'} ${issue.message}`, true);
  }
  return parsed.data;
}

/** Add one validated list's new assets and deployments to the registry, in one transaction. */
async function applyTokenList(db: Db, list: TokenList): Promise<{ new_assets: number; new_deployments: number }> {
  return db.transaction().execute(async (trx) => {
    const { assets } = await loadRegistry(trx);
    const diff = diffTokenList(assets, list.tokens);
    await insertListAssets(trx, diff.newAssets);
    await insertDeploymentRows(trx, [...diff.newAssets.flatMap((a) => a.deployments.map((caip19) => ({ asset_id: a.id, caip19 }))), ...diff.newDeployments]);
    return { new_assets: diff.newAssets.length, new_deployments: diff.newDeployments.length + diff.newAssets.reduce((n, a) => n + a.deployments.length, 0) };
  });
}

interface ListOutcome {
  url: string;
  name: string;
  tokens: number;
  new_assets: number;
  new_deployments: number;
}

/** Refresh the registry from every configured list (see the module comment for failures). */
export async function refreshTokenLists(db: Db, registry: AssetRegistry, urls: readonly string[], opts: FetchOptions): Promise<{ lists: ListOutcome[] }> {
  const lists: ListOutcome[] = [];
  const failures: TokenListFailure[] = [];
  for (const url of urls) {
    try {
      const list = await fetchTokenList(url, opts);
      lists.push({ url, name: list.name, tokens: list.tokens.length, ...(await applyTokenList(db, list)) });
    } catch (err) {
      if (!(err instanceof TokenListFailure)) throw err;
      failures.push(err);
    }
  }
  if (lists.some((l) => l.new_assets + l.new_deployments > 0)) registry.invalidate();
  if (failures.length === 0) return { lists };
  const applied = lists.map((l) => `${l.url} (+${l.new_assets} assets, +${l.new_deployments} deployments)`).join('; ');
  const message = `token lists failed: ${failures.map((f) => f.message).join('; ')}${applied ? `; applied: ${applied}` : ''}`;
  throw failures.every((f) => f.permanent) ? new PermanentJobError(message) : new Error(message);
}
