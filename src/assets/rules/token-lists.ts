/**
 * Token Lists (the @uniswap/token-lists format): the fields the registry uses, validated, and the
 * diff a list makes to the registry. Pure: the caller fetches the list and applies the diff.
 *
 * The diff only adds: a token whose CAIP-19 deployment the registry already has changes nothing; a
 * token with the symbol and a matching name of a known asset becomes a deployment of that asset; the
 * rest become new assets (source `token-list`, a slug id from the name), one per symbol and name,
 * with every chain's deployment. Nothing is deleted or renamed.
 */
import { z } from 'zod';
import { erc20Caip19, sameAsset, slugify, SOURCE_PRIORITY, type AssetRecord } from './registry.js';

/** The most tokens one list may hold (the schema's own maxItems). */
const TOKEN_LIST_MAX_TOKENS = 10_000;

const tokenSchema = z.object({
  chainId: z
    .number()
    .int()
    .min(1)
    .max(2 ** 53 - 1),
  address: z.string().regex(/^0x[a-fA-F0-9]{40}$/),
  name: z.string().trim().min(1).max(60),
  symbol: z.string().trim().min(1).max(20),
  decimals: z.number().int().min(0).max(255),
});

/** The fields of a token list this service reads; other fields (logoURI, tags, extensions) pass unread. */
export const tokenListSchema = z.object({
  name: z.string().min(1).max(40),
  timestamp: z.string().min(1),
  version: z.object({ major: z.number().int().min(0), minor: z.number().int().min(0), patch: z.number().int().min(0) }),
  tokens: z.array(tokenSchema).min(1).max(TOKEN_LIST_MAX_TOKENS),
});

export type TokenList = z.infer<typeof tokenListSchema>;
type ListToken = TokenList['tokens'][number];

/** What a token list adds to the registry. */
interface TokenListDiff {
  newAssets: { id: string; symbol: string; name: string; deployments: string[] }[];
  newDeployments: { asset_id: string; caip19: string }[];
}

type Known = Pick<AssetRecord, 'id' | 'symbol' | 'name' | 'source' | 'deployments'>;

function indexRegistry(assets: readonly Known[]) {
  const deployments = new Set<string>();
  const bySymbol = new Map<string, Known[]>();
  for (const a of [...assets].sort((x, y) => SOURCE_PRIORITY[x.source] - SOURCE_PRIORITY[y.source] || x.id.localeCompare(y.id))) {
    for (const d of a.deployments) deployments.add(d);
    const key = a.symbol.toUpperCase();
    bySymbol.set(key, [...(bySymbol.get(key) ?? []), a]);
  }
  return { deployments, bySymbol, ids: new Set(assets.map((a) => a.id)) };
}

/** A free slug id for a new asset, or undefined when neither the name nor name-symbol is free. */
function freeId(ids: Set<string>, name: string, symbol: string): string | undefined {
  for (const candidate of [slugify(name), slugify(`${name}-${symbol}`)]) if (candidate && candidate.length <= 100 && !ids.has(candidate)) return candidate;
  return undefined;
}

/** The additions `tokens` make to a registry of `assets` (see the module comment). */
export function diffTokenList(assets: readonly Known[], tokens: readonly ListToken[]): TokenListDiff {
  const reg = indexRegistry(assets);
  const diff: TokenListDiff = { newAssets: [], newDeployments: [] };
  const created = new Map<string, TokenListDiff['newAssets'][number]>();
  for (const t of tokens) {
    const caip19 = erc20Caip19(t.chainId, t.address);
    if (reg.deployments.has(caip19)) continue;
    reg.deployments.add(caip19);
    const known = reg.bySymbol.get(t.symbol.toUpperCase())?.find((a) => sameAsset(a, t));
    if (known) {
      diff.newDeployments.push({ asset_id: known.id, caip19 });
      continue;
    }
    const key = `${t.symbol.toUpperCase()}\u0000${t.name.toLowerCase()}`;
    const mine = created.get(key);
    if (mine) {
      mine.deployments.push(caip19);
      continue;
    }
    const id = freeId(reg.ids, t.name, t.symbol);
    if (!id) continue;
    reg.ids.add(id);
    const asset = { id, symbol: t.symbol, name: t.name, deployments: [caip19] };
    created.set(key, asset);
    diff.newAssets.push(asset);
  }
  return diff;
}
