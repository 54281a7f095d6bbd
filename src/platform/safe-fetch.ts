/**
 * Outbound HTTP for URLs that users or feeds hand us (feeds, page titles): a guard against SSRF.
 *
 * - Only http: and https: URLs.
 * - Every host is resolved first; when any resolved address is private, loopback, link-local,
 *   CGNAT, multicast, reserved or documentation space (isPrivateAddress), the request is refused
 *   unless `allowPrivate` (config OUTBOUND_ALLOW_PRIVATE) is set. The connection then uses exactly
 *   the addresses that were checked (pinned lookup), so a second DNS answer cannot slip in.
 * - Redirects are followed by hand, at most `maxRedirects`, and every hop is checked again.
 * - One deadline (`timeoutMs`) covers all hops and the body; the decoded body is capped at
 *   `maxBytes` (Content-Length is checked up front as well).
 * - `accept` optionally restricts the content types of a 2xx response.
 *
 * Non-2xx statuses are returned, not thrown (a 304 of a conditional GET is a normal answer).
 * Failures throw SafeFetchError with a stable `code`.
 *
 * Webhook deliveries use it too: POST with a body, `maxRedirects: 0` (a 3xx is returned, never
 * followed), `truncateBody` (keep the first bytes of a response, drop the rest, no error) and
 * keep-alive `agents` (a reused socket is one whose address was checked when it connected).
 */
import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { BlockList } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

type SafeFetchErrorCode = 'invalid_url' | 'blocked_address' | 'dns_failed' | 'timeout' | 'too_large' | 'too_many_redirects' | 'bad_redirect' | 'bad_content_type' | 'network';

export class SafeFetchError extends Error {
  constructor(
    readonly code: SafeFetchErrorCode,
    message: string,
    readonly url?: string,
  ) {
    super(message);
    this.name = 'SafeFetchError';
  }
}

export interface SafeFetchOptions {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  /** Request body (POST); Content-Length is set from it. */
  body?: string | Buffer;
  /** Read at most `maxBytes` of the body and return them instead of failing with too_large. */
  truncateBody?: boolean;
  /** Keep-alive agents to reuse connections (default: a new connection per request). */
  agents?: { http?: http.Agent; https?: https.Agent };
  /** Deadline for the whole exchange, redirects and body included. Default 10 s. */
  timeoutMs?: number;
  /** Cap on the decoded body. Default 5 MiB. */
  maxBytes?: number;
  /** Default 5. 0 returns the 3xx response itself. */
  maxRedirects?: number;
  /** config.OUTBOUND_ALLOW_PRIVATE: permit private and loopback addresses (development, tests). */
  allowPrivate?: boolean;
  /** Accepted media types of a 2xx response: exact ("application/json") or "text/*". Default: any. */
  accept?: string[];
  /** With `accept`: whether a 2xx response without Content-Type passes. Default true. */
  allowMissingContentType?: boolean;
  userAgent?: string;
  signal?: AbortSignal;
  /** DNS hook (tests, custom resolvers): host name -> addresses. Default: the system resolver. */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Address policy hook; default `allowPrivate || !isPrivateAddress(ip)`. */
  isAddressAllowed?: (ip: string) => boolean;
}

export interface SafeFetchResponse {
  status: number;
  /** The final URL after redirects. */
  url: string;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** Every URL requested before the final one. */
  redirects: string[];
  /** The body decoded with the charset of Content-Type, an XML declaration or a BOM (UTF-8 otherwise). */
  text(): string;
}

// ---------------------------------------------------------------------------------------------
// Address policy

const blocked = new BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net4, bits, 'ipv4');
}
for (const [net6, bits] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking, ORCHID, AMT, AS112...
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 segment identifiers
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(net6, bits, 'ipv6');
}

/** The 8 hextets of an IPv6 address (with an embedded dotted IPv4 tail expanded). */
function hextets(ip: string): number[] | null {
  let s = ip.toLowerCase();
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const p = v4[1].split('.').map(Number);
    s = s.slice(0, -v4[1].length) + `${((p[0] << 8) | p[1]).toString(16)}:${((p[2] << 8) | p[3]).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const fill = s.includes('::') ? 8 - h.length - t.length : 0;
  const all = [...h, ...Array(Math.max(fill, 0)).fill('0'), ...t].map((x) => parseInt(x, 16));
  return all.length === 8 && all.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? all : null;
}

function v4FromHextets(a: number, b: number): string {
  return `${a >> 8}.${a & 0xff}.${b >> 8}.${b & 0xff}`;
}

/** True for addresses a server-side fetch must not reach (see the lists above). Unparseable -> true. */
export function isPrivateAddress(ip: string): boolean {
  const family = net.isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return true;
  const h = hextets(ip);
  if (!h) return true;
  // IPv6 forms that carry an IPv4 address, judged by the IPv4 rules: mapped ::ffff:a.b.c.d,
  // translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16.
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) return isPrivateAddress(v4FromHextets(h[6], h[7]));
  if (h.slice(0, 4).every((x) => x === 0) && h[4] === 0xffff && h[5] === 0) return isPrivateAddress(v4FromHextets(h[6], h[7]));
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) return isPrivateAddress(v4FromHextets(h[6], h[7]));
  if (h[0] === 0x2002) return isPrivateAddress(v4FromHextets(h[1], h[2]));
  return blocked.check(ip.split('%')[0], 'ipv6');
}

async function systemResolve(hostname: string): Promise<string[]> {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}

// ---------------------------------------------------------------------------------------------
// Fetch

const DEFAULTS = { timeoutMs: 10_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 };

function mediaTypeOf(contentType: string | undefined): string | null {
  if (!contentType) return null;
  return contentType.split(';')[0].trim().toLowerCase() || null;
}

function accepted(mediaType: string, patterns: string[]): boolean {
  return patterns.some((p) => {
    const q = p.toLowerCase();
    return q.endsWith('/*') ? mediaType.startsWith(q.slice(0, -1)) : mediaType === q;
  });
}

function charsetOf(contentType: string | undefined, body: Buffer): string {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '')?.[1];
  if (fromHeader) return fromHeader;
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  const decl = /^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(body.subarray(0, 200).toString('latin1'));
  return decl?.[1] ?? 'utf-8';
}

function decodeBody(body: Buffer, contentType?: string): string {
  const label = charsetOf(contentType, body);
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function parseTarget(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new SafeFetchError('invalid_url', 'not a valid URL', raw);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SafeFetchError('invalid_url', `scheme ${u.protocol} is not allowed`, raw);
  if (u.username || u.password) throw new SafeFetchError('invalid_url', 'credentials in URLs are not allowed', raw);
  return u;
}

/** Resolve and check one hop's host; returns the addresses the connection may use. */
async function checkedAddresses(u: URL, opts: SafeFetchOptions): Promise<string[]> {
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const allowed = opts.isAddressAllowed ?? ((ip: string) => Boolean(opts.allowPrivate) || !isPrivateAddress(ip));
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (opts.resolve ?? systemResolve)(host);
    } catch (err) {
      throw new SafeFetchError('dns_failed', `could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, u.href);
    }
    if (addresses.length === 0) throw new SafeFetchError('dns_failed', `no addresses for ${host}`, u.href);
  }
  const bad = addresses.find((a) => !allowed(a));
  if (bad !== undefined) throw new SafeFetchError('blocked_address', `${host} resolves to a private or reserved address (refused unless OUTBOUND_ALLOW_PRIVATE=true)`, u.href);
  return addresses;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;

function pinnedLookup(addresses: string[]) {
  return (_hostname: string, options: { all?: boolean } | number | undefined, cb: LookupCallback) => {
    const all = typeof options === 'object' && options?.all;
    if (all)
      cb(
        null,
        addresses.map((a) => ({ address: a, family: net.isIP(a) })),
      );
    else cb(null, addresses[0], net.isIP(addresses[0]));
  };
}

interface Hop {
  status: number;
  headers: Record<string, string>;
  stream: http.IncomingMessage;
}

function requestOnce(u: URL, addresses: string[], opts: SafeFetchOptions, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const mod = u.protocol === 'https:' ? https : http;
    const agent = (u.protocol === 'https:' ? opts.agents?.https : opts.agents?.http) ?? false;
    const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
    const req = mod.request(
      {
        protocol: u.protocol,
        hostname: u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname,
        port: u.port || undefined,
        path: `${u.pathname}${u.search}`,
        method: opts.method ?? 'GET',
        headers: {
          'user-agent': opts.userAgent ?? 'squid-news/1.0',
          accept: '*/*',
          'accept-encoding': 'gzip, deflate, br',
          ...(body ? { 'content-length': String(body.length) } : {}),
          ...(opts.headers ?? {}),
        },
        agent,
        lookup: pinnedLookup(addresses) as never,
        signal,
      },
      (res) => resolve({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), stream: res }),
    );
    req.on('error', reject);
    req.end(body);
  });
}

function decoded(hop: Hop): Readable {
  const enc = (hop.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip') return hop.stream.pipe(zlib.createGunzip());
  if (enc === 'deflate') return hop.stream.pipe(zlib.createInflate());
  if (enc === 'br') return hop.stream.pipe(zlib.createBrotliDecompress());
  return hop.stream;
}

async function readCapped(stream: Readable, maxBytes: number, url: string, truncate = false): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      stream.destroy();
      if (truncate) {
        chunks.push((chunk as Buffer).subarray(0, (chunk as Buffer).length - (total - maxBytes)));
        break;
      }
      throw new SafeFetchError('too_large', `response body exceeds ${maxBytes} bytes`, url);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function asSafeError(err: unknown, url: string, signal: AbortSignal, timeoutMs: number): SafeFetchError {
  if (err instanceof SafeFetchError) return err;
  if (signal.aborted) return new SafeFetchError('timeout', `no complete response within ${timeoutMs} ms`, url);
  const code = (err as NodeJS.ErrnoException)?.code;
  return new SafeFetchError('network', `request failed${code ? ` (${code})` : ''}`, url);
}

/** Fetch an untrusted URL under the rules of the module comment. */
export async function safeFetch(rawUrl: string, opts: SafeFetchOptions = {}): Promise<SafeFetchResponse> {
  const timeoutMs = opts.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxBytes = opts.maxBytes ?? DEFAULTS.maxBytes;
  const maxRedirects = opts.maxRedirects ?? DEFAULTS.maxRedirects;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onOuterAbort = () => controller.abort();
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const redirects: string[] = [];
  let current = parseTarget(rawUrl);
  try {
    for (;;) {
      let hop: Hop;
      try {
        const addresses = await checkedAddresses(current, opts);
        if (controller.signal.aborted) throw new SafeFetchError('timeout', `no complete response within ${timeoutMs} ms`, current.href);
        hop = await requestOnce(current, addresses, opts, controller.signal);
      } catch (err) {
        throw asSafeError(err, current.href, controller.signal, timeoutMs);
      }
      const location = hop.headers.location;
      if (hop.status >= 300 && hop.status < 400 && hop.status !== 304 && location !== undefined && maxRedirects > 0) {
        hop.stream.resume();
        if (redirects.length >= maxRedirects) throw new SafeFetchError('too_many_redirects', `more than ${maxRedirects} redirects`, current.href);
        let next: URL;
        try {
          next = parseTarget(new URL(location, current).href);
        } catch {
          throw new SafeFetchError('bad_redirect', 'redirect to an invalid or non-http(s) URL', current.href);
        }
        redirects.push(current.href);
        current = next;
        continue;
      }
      const ok = hop.status >= 200 && hop.status < 300;
      const mediaType = mediaTypeOf(hop.headers['content-type']);
      if (ok && opts.accept && (mediaType ? !accepted(mediaType, opts.accept) : opts.allowMissingContentType === false)) {
        hop.stream.destroy();
        throw new SafeFetchError('bad_content_type', `content type ${mediaType ?? '(none)'} is not accepted`, current.href);
      }
      const declared = Number(hop.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes && !opts.truncateBody) {
        hop.stream.destroy();
        throw new SafeFetchError('too_large', `response body of ${declared} bytes exceeds ${maxBytes}`, current.href);
      }
      let body: Buffer;
      try {
        body = opts.method === 'HEAD' ? Buffer.alloc(0) : await readCapped(decoded(hop), maxBytes, current.href, opts.truncateBody);
      } catch (err) {
        hop.stream.destroy();
        throw asSafeError(err, current.href, controller.signal, timeoutMs);
      }
      const headers = hop.headers;
      return { status: hop.status, url: current.href, headers, body, redirects, text: () => decodeBody(body, headers['content-type']) };
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
}
