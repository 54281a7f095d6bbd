/**
 * page-title: fetch a submission's page and replace its provisional headline with the page title
 * (src/articles/rules/page-title.ts), keeping the page's description and claimed publication time
 * beside it (the story assigner's page text and claimed time). The web process waits for this job a bounded time (JOB_WAIT_MS); when
 * the wait runs out the job still finishes and fills the headline in later.
 *
 * The fetch goes through safeFetch: http(s) only, every host resolved and refused when private,
 * loopback or link-local (unless OUTBOUND_ALLOW_PRIVATE), re-checked on every redirect (at most
 * MAX_REDIRECTS), one PAGE_TIMEOUT_MS deadline, a PAGE_MAX_BYTES cap, HTML content types only.
 *
 * The new headline is tagged with its assets before the transaction opens and written with its tags
 * and token-field fill by the headline's own statement (its article.edited event carries them), so
 * no separate asset-tag run follows it.
 *
 * Outcomes: `ok` (headline written, or kept because an editor or the submitter set one meanwhile);
 * `failed` with a reason for conditions a retry cannot fix (refused address, not HTML, too large,
 * no title, 4xx). Timeouts, DNS and network errors and 5xx/408/429 answers throw, so BullMQ retries
 * with backoff; after the last attempt the provisional headline stays until an editor edits it.
 */
import { z } from 'zod';
import { extractPage, type PageMeta } from '../src/articles/index.js';
import { safeFetch, SafeFetchError, type SafeFetchOptions } from '../src/platform/safe-fetch.js';
import { applyPageTitle, getArticleForEvent, recordPageTitleFailure } from '../src/articles/index.js';
import { headlineTagging, sharedRegistry } from '../src/assets/index.js';
import { defaultJobOptions, defineJob, type JobDeps } from './define.js';
import { PermanentJobError } from '../src/platform/errors/permanent-job-error.js';

const payload = z.object({
  article_id: z.number().int().positive(),
  /** Set by page-title-sweep (its nth retry of a lost or failed job): a new job id for each sweep. */
  sweep: z.number().int().positive().optional(),
});

const PAGE_TIMEOUT_MS = 8000;
const PAGE_MAX_BYTES = 2 * 1024 * 1024;
const MAX_REDIRECTS = 5;
const HTML_TYPES = ['text/html', 'application/xhtml+xml'];

const PERMANENT: ReadonlySet<string> = new Set(['invalid_url', 'blocked_address', 'bad_redirect', 'too_many_redirects', 'bad_content_type', 'too_large']);

type TitleOutcome = ({ ok: true } & PageMeta) | { ok: false; reason: string };

/**
 * Fetch a page and extract its title, description and claimed publication time. Permanent failures
 * are returned; transient ones throw.
 * `hooks` lets tests pin DNS answers and the address policy (safeFetch's resolve / isAddressAllowed).
 */
export async function fetchPageTitle(url: string, opts: { allowPrivate: boolean } & Pick<SafeFetchOptions, 'resolve' | 'isAddressAllowed' | 'timeoutMs'>): Promise<TitleOutcome> {
  let res;
  try {
    res = await safeFetch(url, {
      allowPrivate: opts.allowPrivate,
      timeoutMs: opts.timeoutMs ?? PAGE_TIMEOUT_MS,
      maxBytes: PAGE_MAX_BYTES,
      maxRedirects: MAX_REDIRECTS,
      accept: HTML_TYPES,
      allowMissingContentType: true,
      headers: { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1' },
      resolve: opts.resolve,
      isAddressAllowed: opts.isAddressAllowed,
    });
  } catch (err) {
    if (err instanceof SafeFetchError && PERMANENT.has(err.code)) return { ok: false, reason: err.code };
    throw err;
  }
  if (res.status >= 500 || res.status === 408 || res.status === 429) throw new Error(`page answered ${res.status}`);
  if (res.status < 200 || res.status >= 300) return { ok: false, reason: `http_${res.status}` };
  const page = extractPage(res.text());
  return page ? { ok: true, ...page } : { ok: false, reason: 'no_title' };
}

/**
 * The job's work: the page's title written over the provisional headline and, with `tagAssets`
 * (always, in the job), the new headline's assets written by the same statement (src/assets
 * headlineTagging). Without it: the benchmark's baseline.
 */
export async function runPageTitle(p: z.infer<typeof payload>, deps: JobDeps, tagAssets: boolean) {
  const article = await getArticleForEvent(deps.db, p.article_id);
  if (!article) throw new PermanentJobError(`article ${p.article_id} does not exist`);
  if (article.headline_source !== 'provisional') return { status: 'ok' as const, headline: article.headline, updated: false };
  const outcome = await fetchPageTitle(article.url, { allowPrivate: deps.config.OUTBOUND_ALLOW_PRIVATE });
  if (!outcome.ok) {
    deps.log.info({ job: 'page-title', articleId: p.article_id, reason: outcome.reason }, 'no page title');
    await recordPageTitleFailure(deps.db, p.article_id, outcome.reason);
    return { status: 'failed' as const, reason: outcome.reason, headline: article.headline, updated: false };
  }
  const tagging = tagAssets ? await headlineTagging(deps.db, sharedRegistry, outcome.title) : undefined;
  const row = await applyPageTitle(deps.db, p.article_id, outcome, tagging);
  if (!row) {
    const now = await getArticleForEvent(deps.db, p.article_id);
    return { status: 'ok' as const, headline: now?.headline ?? outcome.title, updated: false };
  }
  return { status: 'ok' as const, headline: row.headline, updated: true };
}

export const job = defineJob({
  name: 'page-title',
  payload,
  options: {
    ...defaultJobOptions,
    attempts: 3,
    backoffMs: 2000,
    concurrency: 8,
    jobId: (p) => (p.sweep ? `page-title-${p.article_id}-sweep-${p.sweep}` : `page-title-${p.article_id}`),
  },
  run: (p, deps) => runPageTitle(p, deps, true),
});
