/**
 * URL normalisation for provenance and duplicate detection. Two URLs that name the same story
 * should normalise to the same string; the result is what articles and wire items store in
 * `normalized_url` (indexed) and what POST /provenance/check echoes.
 *
 * Rules, in order:
 *  1. Only absolute http: and https: URLs (after trimming surrounding whitespace); anything else -> null.
 *  2. Scheme and host lower-case (IDN hosts in punycode), trailing dots of the host removed,
 *     default ports (80 / 443) dropped, user name and password dropped, fragment dropped.
 *  3. twitter.com, www.twitter.com, mobile.twitter.com (and www./mobile. x.com) -> x.com.
 *  4. Path: dot segments resolved, percent-escapes upper-cased, escapes of unreserved letters,
 *     digits, '-', '_' and '~' decoded, trailing slashes removed (the root path stays "/").
 *  5. Query: tracking parameters removed (src/platform/url/tracking-params.ts), empty pieces removed,
 *     remaining parameters sorted by name (stable: repeated names keep their order), values untouched.
 *  6. A result longer than MAX_NORMALIZED_URL_LENGTH -> null (it has to fit a btree index entry).
 *
 * Invariants (property-tested): never throws on any string; idempotent (normalizeUrl(normalizeUrl(x)) === normalizeUrl(x)).
 * The scheme is kept: http:// and https:// versions of a URL stay different, as do www. and bare hosts.
 */
import { globalTrackingParams, globalTrackingPrefixes, providerTrackingParams, refMeaningfulHosts } from './tracking-params.js';

export const MAX_NORMALIZED_URL_LENGTH = 2048;
/** Longer input is rejected before parsing (the output could not fit anyway). */
const MAX_INPUT_LENGTH = 16 * 1024;

// A Map, not an object literal: a host named "__proto__" must not find Object.prototype.
const HOST_ALIASES: ReadonlyMap<string, string> = new Map([
  ['twitter.com', 'x.com'],
  ['www.twitter.com', 'x.com'],
  ['mobile.twitter.com', 'x.com'],
  ['www.x.com', 'x.com'],
  ['mobile.x.com', 'x.com'],
]);

const globalNames = new Set(globalTrackingParams.map((n) => n.toLowerCase()));
const globalPrefixes = globalTrackingPrefixes.map((p) => p.toLowerCase());
const providers = Object.entries(providerTrackingParams).map(([host, names]) => ({
  host,
  exact: new Set(names.filter((n) => !n.endsWith('*')).map((n) => n.toLowerCase())),
  prefixes: names.filter((n) => n.endsWith('*')).map((n) => n.slice(0, -1).toLowerCase()),
}));

function hostIs(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** True when the (decoded, lower-cased) parameter name is a tracking parameter on this host. */
function isTrackingParam(name: string, host: string): boolean {
  const n = name.toLowerCase();
  if (n === 'ref' && refMeaningfulHosts.some((h) => hostIs(host, h))) return false;
  if (globalNames.has(n)) return true;
  if (globalPrefixes.some((p) => n.startsWith(p))) return true;
  for (const p of providers) {
    if (hostIs(host, p.host) && (p.exact.has(n) || p.prefixes.some((x) => n.startsWith(x)))) return true;
  }
  return false;
}

const UNRESERVED = /^[A-Za-z0-9\-_~]$/;

/** Upper-case every %xx escape; decode the ones that stand for an unreserved character (never '.'). */
function normalizeEscapes(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

function normalizePath(pathname: string): string {
  const p = normalizeEscapes(pathname).replace(/\/+$/, '');
  return p === '' ? '/' : p;
}

function normalizeQuery(search: string, host: string): string {
  if (search === '' || search === '?') return '';
  const kept: { key: string; piece: string }[] = [];
  for (const rawPiece of search.slice(1).split('&')) {
    if (rawPiece === '') continue;
    const piece = normalizeEscapes(rawPiece);
    const eq = piece.indexOf('=');
    const key = eq === -1 ? piece : piece.slice(0, eq);
    if (isTrackingParam(safeDecode(key), host)) continue;
    kept.push({ key, piece });
  }
  // Array.prototype.sort is stable: repeated names keep their relative order.
  kept.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return kept.map((k) => k.piece).join('&');
}

/**
 * The normalised form of an http(s) URL, or null when `raw` is not one (or is absurdly long).
 * Never throws.
 */
export function normalizeUrl(raw: string): string | null {
  try {
    if (typeof raw !== 'string' || raw.length > MAX_INPUT_LENGTH) return null;
    const u = new URL(raw.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    let host = u.hostname.replace(/\.+$/, '');
    if (host === '') return null;
    host = HOST_ALIASES.get(host) ?? host;
    const query = normalizeQuery(u.search, host);
    const out = `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}${normalizePath(u.pathname)}${query ? `?${query}` : ''}`;
    return out.length <= MAX_NORMALIZED_URL_LENGTH ? out : null;
  } catch {
    return null;
  }
}

/** The host of a normalised URL (for display as a source when nothing better is known). */
export function hostOf(normalized: string): string {
  try {
    return new URL(normalized).hostname;
  } catch {
    return '';
  }
}
