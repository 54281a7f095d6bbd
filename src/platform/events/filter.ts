/**
 * Subscription filters over lifecycle events (filtered streams, webhook filters). Pure.
 * The one matching rule of both: stream filters (src/stream/rules/filter.ts parses them from a query
 * string) and webhook endpoint filters (src/webhooks/rules/match.ts compiles them from the stored
 * endpoint) both end in `matchesAttributes`; each caller keeps its own input parsing and errors.
 *
 * An event matches a filter when its type is one of `types` (when given) and, for each attribute
 * kind the filter lists, the article has at least one of the listed values: AND across kinds, OR
 * within a kind. Attributes are the article's as of the event's commit (event_log.attrs). An event
 * without attributes (news.tsunami: a wire item, not an article) matches only filters that list no
 * attribute kind.
 *
 * Values compare normalised (`foldFilterValue`, on both sides): trimmed, token addresses and tags
 * lower-case, token symbols upper-case (symbols are stored as the editor typed them, so `eth`
 * matches an article tagged `ETH`). Asset ids are canonical lower-case slugs (attrs.assets: the
 * article's visible asset tags when the event was recorded; absent on events of untagged articles).
 */
/** A tag (of an article or a yap): a slug of lower-case letters, digits and single hyphens. */
export const YAP_TAG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_YAP_TAG_LENGTH = 32;

/** An EVM address (0x + 40 hex digits) or a base58 (Solana-style) address, as articles accept them. */
export const TOKEN_ADDRESS_PATTERNS = [/^0x[0-9a-fA-F]{40}$/, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/] as const;
/** A canonical asset id (the assets registry's slugs: `bitcoin`, `usd-coin`). */
export const ASSET_FILTER_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Token symbols as articles accept them. */
export const TOKEN_SYMBOL_PATTERN = /^[A-Za-z0-9$._-]{1,20}$/;

/** The attribute kinds a filter can list, by their names in event_log.attrs. */
export const attributeKinds = ['token_addresses', 'token_symbols', 'tags', 'assets'] as const;
export type AttributeKind = (typeof attributeKinds)[number];

/** An event's attributes, normalised (see normalizeAttrs). `assets` is absent where nobody computed it (it then matches no asset filter). */
export type EventAttrs = Record<Exclude<AttributeKind, 'assets'>, readonly string[]> & { assets?: readonly string[] };

/** The attribute part of a filter: per kind, the wanted values (normalised), or null when the kind is not filtered on. */
export type AttributeFilter = Readonly<Record<Exclude<AttributeKind, 'assets'>, ReadonlySet<string> | null>> & { readonly assets?: ReadonlySet<string> | null };

export interface EventFilter<T extends string = string> extends AttributeFilter {
  /** null: every type. */
  types: ReadonlySet<T> | null;
}

/** A value of the kind as matching compares it (no validation): trimmed, symbols upper-case, the rest lower-case. */
export function foldFilterValue(kind: AttributeKind, v: string): string {
  const s = v.trim();
  return kind === 'token_symbols' ? s.toUpperCase() : s.toLowerCase();
}

/** The normalised value, or null when `v` is not a valid value of the kind. */
export function normalizeFilterValue(kind: AttributeKind, v: string): string | null {
  const s = v.trim();
  switch (kind) {
    case 'token_addresses':
      return TOKEN_ADDRESS_PATTERNS.some((re) => re.test(s)) ? foldFilterValue(kind, s) : null;
    case 'token_symbols':
      return TOKEN_SYMBOL_PATTERN.test(s) ? foldFilterValue(kind, s) : null;
    case 'tags': {
      const t = foldFilterValue(kind, s);
      return t.length <= MAX_YAP_TAG_LENGTH && YAP_TAG_PATTERN.test(t) ? t : null;
    }
    case 'assets':
      return s.length <= 100 && ASSET_FILTER_PATTERN.test(s) ? s : null;
  }
}

/** What each kind accepts, for error messages. */
export const filterValueRules: Record<AttributeKind, string> = {
  token_addresses: 'a token contract address (0x + 40 hex digits, or a base58 address)',
  token_symbols: 'a token symbol: 1 to 20 of A-Z a-z 0-9 $ . _ -',
  tags: `a tag: a slug of lower-case letters, digits and single hyphens, at most ${MAX_YAP_TAG_LENGTH} characters`,
  assets: 'an asset id: a slug of lower-case letters, digits and single hyphens (GET /api/v1/assets/?q= finds it)',
};

/**
 * event_log.attrs as the relay passes it ({tags, token_addresses, token_symbols}, JSON-parsed),
 * normalised for matching; null when absent or not an object. Missing or malformed kinds are empty.
 */
export function normalizeAttrs(raw: unknown): EventAttrs | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  const list = (kind: AttributeKind): string[] => {
    const v = r[kind];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').map((x) => foldFilterValue(kind, x)) : [];
  };
  const base = { token_addresses: list('token_addresses'), token_symbols: list('token_symbols'), tags: list('tags') };
  return Array.isArray(r.assets) ? { ...base, assets: list('assets') } : base;
}

/** True when a filter lists no type and no attribute kind (it matches everything). */
export function isEmptyFilter(f: EventFilter): boolean {
  return f.types === null && attributeKinds.every((k) => f[k] == null);
}

/**
 * The rule: for each kind the filter lists, the article has at least one of the listed values (AND
 * across kinds, OR within a kind); no kind listed matches everything, including an event without
 * attributes. Both sides normalised (normalizeAttrs, foldFilterValue).
 */
export function matchesAttributes(f: AttributeFilter, attrs: EventAttrs | null): boolean {
  // The three kinds spelled out rather than looped over: this runs for every event and every
  // filter a ws process holds, and a loop over the kind names makes each access a keyed lookup.
  const { token_addresses: addresses, token_symbols: symbols, tags } = f;
  const assets = f.assets ?? null;
  if (addresses === null && symbols === null && tags === null && assets === null) return true;
  if (attrs === null) return false;
  return (
    (addresses === null || anyIn(attrs.token_addresses, addresses)) &&
    (symbols === null || anyIn(attrs.token_symbols, symbols)) &&
    (tags === null || anyIn(attrs.tags, tags)) &&
    (assets === null || anyIn(attrs.assets ?? [], assets))
  );
}

function anyIn(values: readonly string[], wanted: ReadonlySet<string>): boolean {
  for (let i = 0; i < values.length; i++) if (wanted.has(values[i])) return true;
  return false;
}

/** The stream rule: the type is one of `types` (when given) and the attributes match. */
export function matchesEventFilter<T extends string>(f: EventFilter<T>, type: T, attrs: EventAttrs | null): boolean {
  if (f.types !== null && !f.types.has(type)) return false;
  return matchesAttributes(f, attrs);
}

/** A canonical text of the filter: equal filters (whatever the order or case of their values) give equal keys. */
export function eventFilterKey(f: EventFilter): string {
  const part = (s: ReadonlySet<string> | null) => (s === null ? null : [...s].sort());
  return JSON.stringify([part(f.types), part(f.token_addresses), part(f.token_symbols), part(f.tags), ...(f.assets == null ? [] : [part(f.assets)])]);
}
