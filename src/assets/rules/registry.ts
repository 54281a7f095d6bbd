/**
 * The asset registry's shape and how the seed registry is merged from its sources: the curated
 * list (src/assets/curated-assets.ts), the cryptocurrency-icons manifest (symbols and names) and
 * MetaMask's contract map (Ethereum mainnet ERC-20 deployments). Pure: the caller passes the data.
 */

/** A canonical asset id: lower-case letters, digits and single hyphens (CoinGecko style). */
export const ASSET_ID_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** Where an asset came from; earlier sources win a shared symbol (see `SOURCE_PRIORITY`). */
export type AssetSource = 'curated' | 'staff' | 'cryptocurrency-icons' | 'metamask' | 'token-list';

export interface AssetRecord {
  /** Stable canonical id: a lowercase slug (`bitcoin`, `usd-coin`). */
  id: string;
  symbol: string;
  name: string;
  /** Other names and ticker spellings (`Ether`, `XRP Ledger`, `stETH`). */
  aliases: string[];
  /** Its bare ticker or single-word name is an everyday word: tagged only with context. */
  ambiguous: boolean;
  /** CAIP-19 ids of its contract deployments (`eip155:1/erc20:0xa0b8...`), lowercase. */
  deployments: string[];
  source: AssetSource;
}

/** Lower is stronger: a curated or staff asset owns its ticker over package data. */
export const SOURCE_PRIORITY: Record<AssetSource, number> = { curated: 0, staff: 0, 'cryptocurrency-icons': 1, 'token-list': 2, metamask: 2 };

export interface ManifestEntry {
  symbol: string;
  name: string;
}

export interface ContractMapEntry {
  name?: string;
  symbol?: string;
  erc20?: boolean;
}

/** Manifest symbols that are fiat currencies, companies or placeholders, not crypto assets. */
const NOT_ASSETS = new Set(['USD', 'EUR', 'GBP', 'JPY', 'CNY', 'RUB', 'GENERIC', 'SBERBANK', 'QIWI', 'EXMO', 'BCIO']);

export function slugify(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** CAIP-19 id of an ERC-20 on an EVM chain, lowercase. */
export function erc20Caip19(chainId: number, address: string): string {
  return `eip155:${chainId}/erc20:${address.toLowerCase()}`;
}

const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The same asset under two sources: same symbol and one name contains the other. */
export function sameAsset(a: { symbol: string; name: string }, b: { symbol: string; name: string }): boolean {
  if (a.symbol.toUpperCase() !== b.symbol.toUpperCase()) return false;
  const x = squash(a.name);
  const y = squash(b.name);
  return x === y || (x.length >= 3 && y.length >= 3 && (x.includes(y) || y.includes(x)));
}

class RegistryBuilder {
  readonly assets: AssetRecord[] = [];
  private readonly ids = new Set<string>();
  private readonly bySymbol = new Map<string, AssetRecord[]>();

  add(rec: AssetRecord): AssetRecord | undefined {
    if (this.ids.has(rec.id)) return undefined;
    this.ids.add(rec.id);
    this.assets.push(rec);
    const key = rec.symbol.toUpperCase();
    this.bySymbol.set(key, [...(this.bySymbol.get(key) ?? []), rec]);
    return rec;
  }

  findSame(symbol: string, name: string): AssetRecord | undefined {
    return this.bySymbol.get(symbol.toUpperCase())?.find((r) => sameAsset(r, { symbol, name }));
  }

  /** Curated entries own their symbol: package data with the same symbol is the same asset. */
  curatedOwner(symbol: string): AssetRecord | undefined {
    return this.bySymbol.get(symbol.toUpperCase())?.find((r) => r.source === 'curated');
  }

  freeId(name: string, symbol: string): string | undefined {
    for (const candidate of [slugify(name), slugify(`${name}-${symbol}`)]) if (candidate && !this.ids.has(candidate)) return candidate;
    return undefined;
  }
}

/**
 * The seed registry: curated assets first, then manifest assets not already curated, then the
 * contract map's ERC-20s, each either a deployment of an asset already known (same symbol, matching
 * name) or a new asset.
 */
export function buildSeedRegistry(curated: readonly AssetRecord[], manifest: readonly ManifestEntry[], contractMap: Record<string, ContractMapEntry>): AssetRecord[] {
  const b = new RegistryBuilder();
  for (const c of curated) b.add({ ...c, deployments: c.deployments.map((d) => d.toLowerCase()) });
  for (const m of manifest) {
    if (NOT_ASSETS.has(m.symbol) || m.symbol.startsWith('$')) continue;
    if (b.curatedOwner(m.symbol) || b.findSame(m.symbol, m.name)) continue;
    const id = b.freeId(m.name, m.symbol);
    if (id) b.add({ id, symbol: m.symbol, name: m.name, aliases: [], ambiguous: false, deployments: [], source: 'cryptocurrency-icons' });
  }
  for (const [address, e] of Object.entries(contractMap)) {
    if (!e.erc20 || !e.symbol || !e.name || !/^0x[0-9a-fA-F]{40}$/.test(address)) continue;
    const deployment = erc20Caip19(1, address);
    const known = b.curatedOwner(e.symbol) ?? b.findSame(e.symbol, e.name);
    if (known) {
      if (!known.deployments.includes(deployment)) known.deployments.push(deployment);
      continue;
    }
    const id = b.freeId(e.name, e.symbol);
    if (id) b.add({ id, symbol: e.symbol, name: e.name, aliases: [], ambiguous: false, deployments: [deployment], source: 'metamask' });
  }
  return b.assets;
}

const MAINNET_ERC20 = 'eip155:1/erc20:';

/**
 * An article's token fields filled from its tags: upper-case symbols and Ethereum mainnet contract
 * addresses, in the tags' order; undefined when `assets` lacks one of the ids.
 */
export function tokenFieldsFrom(assets: ReadonlyMap<string, AssetRecord>, ids: readonly string[]): { symbols: string[]; addresses: string[] } | undefined {
  const found = ids.map((id) => assets.get(id));
  if (found.some((a) => a === undefined)) return undefined;
  const records = found as AssetRecord[];
  return {
    symbols: records.map((a) => a.symbol.toUpperCase()),
    addresses: records.flatMap((a) => a.deployments.filter((d) => d.startsWith(MAINNET_ERC20)).map((d) => d.slice(MAINNET_ERC20.length))),
  };
}
