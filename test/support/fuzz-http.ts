/**
 * Hostile-input generators for the fuzz tests: fast-check arbitraries driven by the OpenAPI
 * document (path parameters, query strings, JSON/form/multipart bodies, credentials and odd
 * headers) and a raw HTTP client that sends exactly what it is given, from a random 127.0.0.x
 * address (so per-IP limits do not hide the code behind them), with a deadline (a hang is a failure).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { checkRawResponse } from './openapi-hook.js';
import fc from 'fast-check';

type JsonSchema = Record<string, any>;

/** Strings that have broken parsers, ORMs and validators before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '0',
  '-0',
  '-1',
  '1.5',
  '1e309',
  '9007199254740993',
  '99999999999999999999999999',
  'NaN',
  'Infinity',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '%',
  '%00',
  '%ZZ',
  '\u0000',
  '\u202e',
  '\ud800',
  '\uffff',
  '٣',
  '١٢',
  "'; DROP TABLE users;--",
  "' OR '1'='1",
  '../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '<script>alert(1)</script>',
  '${jndi:ldap://x}',
  '__proto__',
  'constructor',
  'toString',
  'a'.repeat(5000),
  'é'.repeat(3000),
  '0x' + 'f'.repeat(40),
  '0x' + '0'.repeat(40),
  '0xZZ',
  'squid_' + 'A'.repeat(43),
  'javascript:alert(1)',
  'http://127.0.0.1:1/',
  'https://example.com/' + 'x'.repeat(3000),
  'https://example.com/?utm_source=a&fbclid=b',
  'file:///etc/passwd',
  'http://[::1]/',
  'http://169.254.169.254/latest/meta-data/',
  'https://x.com/a/status/1',
  '2024-13-45',
  '2024-02',
  '1970-01-01T00:00:00Z',
  '-9223372036854775809',
  '0001',
  ' 1',
  '1 ',
  '+1',
  '0b101',
  '1_000',
];

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: -1000, max: 1_000_000 }).map(String) },
  { weight: 1, arbitrary: fc.webUrl() },
);

function resolve(schema: JsonSchema | undefined, doc: JsonSchema): JsonSchema {
  let s = schema ?? {};
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) {
    const name = s.$ref.split('/').pop()!;
    s = doc.components?.schemas?.[name] ?? {};
  }
  return s;
}

/** A value that usually fits `schema` roughly (so validation passes and deeper code runs), often does not. */
function valueFor(schema: JsonSchema | undefined, doc: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema, doc);
  const junk = depth > 2 ? fc.constantFrom(null, 0, '', 'x') : fc.oneof(fc.jsonValue({ maxDepth: 2 }), hostileString);
  const variants: fc.Arbitrary<unknown>[] = [];
  if (Array.isArray(s.enum)) variants.push(fc.constantFrom(...s.enum));
  if (s.const !== undefined) variants.push(fc.constant(s.const));
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) variants.push(valueFor(alt, doc, depth + 1));
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  for (const t of types) {
    if (t === 'string') {
      if (s.pattern === '^-?\\d+$') variants.push(fc.integer({ min: -5, max: 50 }).map(String));
      variants.push(fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 60) }), hostileString);
      if (s.format === 'uri' || /url|website/i.test(s.description ?? '')) variants.push(fc.webUrl());
    } else if (t === 'integer')
      variants.push(fc.integer({ min: Math.max(-10, s.minimum ?? -10), max: Math.min(1000, s.maximum ?? 1000) }), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, 1.5));
    else if (t === 'number') variants.push(fc.double({ noNaN: true }), fc.constantFrom(0, -1, 1e308));
    else if (t === 'boolean') variants.push(fc.boolean());
    else if (t === 'null') variants.push(fc.constant(null));
    else if (t === 'array') variants.push(fc.array(valueFor(s.items, doc, depth + 1), { maxLength: Math.min(s.maxItems ?? 5, 8) }));
    else if (t === 'object') variants.push(objectFor(s, doc, depth));
  }
  if (types.length === 0 && s.properties) variants.push(objectFor(s, doc, depth));
  if (variants.length === 0) return junk;
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...variants) }, { weight: 1, arbitrary: junk });
}

function objectFor(s: JsonSchema, doc: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>);
  const known = props.length
    ? fc.record(Object.fromEntries(props.map(([k, v]) => [k, valueFor(v, doc, depth + 1)])), { requiredKeys: [] })
    : fc.constant({} as Record<string, unknown>);
  const extra = fc.dictionary(
    fc.oneof(fc.constantFrom('__proto__', 'constructor', 'id', 'user_id', 'roles', 'is_staff'), fc.string({ maxLength: 8 })),
    fc.jsonValue({ maxDepth: 1 }),
    { maxKeys: 2 },
  );
  return fc.tuple(known, fc.option(extra, { freq: 4 })).map(([k, e]) => (e ? { ...k, ...e } : k));
}

export interface Operation {
  method: string;
  /** OpenAPI path template, e.g. /api/v1/news/{id}/ */
  path: string;
  operationId: string;
  pathParams: { name: string; schema: JsonSchema }[];
  queryParams: { name: string; schema: JsonSchema }[];
  bodyTypes: Record<string, JsonSchema>;
}

export function operationsOf(doc: JsonSchema): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = (op.parameters ?? []) as { in: string; name: string; schema: JsonSchema }[];
      const content = (op.requestBody?.content ?? {}) as Record<string, { schema: JsonSchema }>;
      ops.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        bodyTypes: Object.fromEntries(Object.entries(content).map(([t, c]) => [t, c.schema])),
      });
    }
  }
  return ops;
}

/** Percent-encode for a request path; `raw` keeps '%' (malformed escapes reach the server as sent). */
export function encodeSegment(v: string, raw: boolean): string {
  let out = '';
  for (const ch of v) {
    if (raw && ch === '%') out += '%';
    else if (/^[A-Za-z0-9\-._~]$/.test(ch)) out += ch;
    else out += [...Buffer.from(ch, 'utf8')].map((b) => '%' + b.toString(16).toUpperCase().padStart(2, '0')).join('');
  }
  return out;
}

interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  ms: number;
}

class HangError extends Error {}

/** Send exactly this request to host:port from 127.0.0.<2..254>; fail with HangError after `timeoutMs`. */
export function sendRaw(port: number, req: RawRequest, timeoutMs = 15_000, localAddress = `127.0.0.${2 + Math.floor(Math.random() * 252)}`): Promise<RawResponse> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: req.path,
        headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) },
        localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          // Fuzzed requests too must get responses the OpenAPI document describes.
          checkRawResponse(req.method, req.path, res.statusCode!, res.headers, text);
          resolve({ status: res.statusCode!, headers: res.headers, text, ms: performance.now() - t0 });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => {
      r.destroy();
      reject(new HangError(`${req.method} ${req.path.slice(0, 200)} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    r.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    r.end(req.body);
  });
}

function multipartBody(fields: Record<string, unknown>, file: { name: string; type: string; bytes: Buffer } | null): { body: Buffer; contentType: string } {
  const boundary = `----fuzz${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const value = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k.replace(/["\r\n]/g, '_')}"\r\n\r\n${value}\r\n`));
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="profile_picture"; filename="${file.name.replace(/["\r\n]/g, '_')}"\r\nContent-Type: ${file.type.replace(/[\r\n]/g, '')}\r\n\r\n`,
      ),
    );
    parts.push(file.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

const PNG_1x1 = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

/** One request for `op`: random params, query, body encoding and credentials (`auth` lists the header sets to choose from). */
export function requestFor(op: Operation, doc: JsonSchema, auth: Record<string, string>[], extraHeaders: Record<string, string>[] = []): fc.Arbitrary<RawRequest> {
  const idLike = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 6 }).map(String) }, { weight: 2, arbitrary: hostileString });
  const pathArb = fc.record(
    Object.fromEntries(
      op.pathParams.map((p) => [
        p.name,
        fc.oneof(
          idLike,
          valueFor(p.schema, doc).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
        ),
      ]),
    ),
  );
  const queryArb = fc.tuple(
    fc.record(Object.fromEntries(op.queryParams.map((p) => [p.name, valueFor(p.schema, doc).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')))])), {
      requiredKeys: [],
    }),
    fc.array(fc.tuple(fc.oneof(fc.constantFrom(...op.queryParams.map((p) => p.name).concat(['x', '__proto__', 'page[]'])), fc.string({ maxLength: 6 })), hostileString), {
      maxLength: 3,
    }),
  );
  const bodyTypes = Object.keys(op.bodyTypes);
  const jsonSchema = op.bodyTypes['application/json'];
  const bodyArb: fc.Arbitrary<{ body?: Buffer; contentType?: string }> = fc.oneof(
    { weight: bodyTypes.length ? 5 : 1, arbitrary: valueFor(jsonSchema, doc).map((v) => ({ body: Buffer.from(JSON.stringify(v) ?? 'null'), contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => ({ body: Buffer.from(JSON.stringify(v) ?? 'null'), contentType: 'application/json' })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('{', '{"a":', '[1,2', 'nul', '\u0000', '{"__proto__":{"x":1}}', '['.repeat(20000) + ']'.repeat(20000))
        .map((t) => ({ body: Buffer.from(t), contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .dictionary(fc.string({ maxLength: 10 }), hostileString, { maxKeys: 4 })
        .map((d) => ({ body: Buffer.from(new URLSearchParams(d).toString()), contentType: 'application/x-www-form-urlencoded' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.uint8Array({ maxLength: 64 }),
          fc.constantFrom('text/plain', 'application/xml', 'application/octet-stream', 'image/png', 'application/json; charset=utf-16', 'multipart/form-data'),
        )
        .map(([b, t]) => ({ body: Buffer.from(b), contentType: t })),
    },
    {
      weight: bodyTypes.includes('multipart/form-data') ? 3 : 1,
      arbitrary: fc
        .tuple(
          valueFor(op.bodyTypes['multipart/form-data'] ?? jsonSchema, doc),
          fc.option(
            fc.record({
              name: hostileString,
              type: fc.constantFrom('image/png', 'image/gif', 'text/html', 'application/x-msdownload', ''),
              bytes: fc.oneof(
                fc.constant(PNG_1x1),
                fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)),
              ),
            }),
          ),
        )
        .map(([fields, file]) => {
          const m = multipartBody(fields && typeof fields === 'object' && !Array.isArray(fields) ? (fields as Record<string, unknown>) : { value: fields }, file);
          return { body: m.body, contentType: m.contentType };
        }),
    },
    { weight: 1, arbitrary: fc.constant({}) },
  );
  const headerArb = fc.oneof(
    { weight: 4, arbitrary: fc.constant({} as Record<string, string>) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        ...extraHeaders,
        { 'x-forwarded-for': '1.2.3.4, 5.6.7.8' },
        { 'x-request-id': 'a'.repeat(200) },
        { 'accept-encoding': 'gzip, br, zstd' },
        { origin: 'https://evil.example' },
        { referer: '::::' },
        { 'content-encoding': 'gzip' },
      ),
    },
  );
  return fc.record({ path: pathArb, query: queryArb, body: bodyArb, auth: fc.constantFrom(...auth), headers: headerArb, rawPath: fc.boolean() }).map((r) => {
    let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeSegment(String((r.path as Record<string, string>)[name] ?? ''), r.rawPath));
    const pairs = [...Object.entries(r.query[0] as Record<string, string>), ...r.query[1]];
    if (pairs.length) path += '?' + pairs.map(([k, v]) => `${encodeSegment(k, r.rawPath)}=${encodeSegment(v, r.rawPath)}`).join('&');
    const headers: Record<string, string> = { ...r.auth, ...r.headers };
    if (r.body.contentType) headers['content-type'] = r.body.contentType;
    const withBody = op.method !== 'GET' || r.rawPath;
    return { method: op.method, path, headers, body: withBody ? r.body.body : undefined };
  });
}

/** The error shape every 4xx/5xx JSON response must have. */
export function hasErrorShape(text: string): boolean {
  try {
    const b = JSON.parse(text);
    return typeof b?.error?.code === 'string' && typeof b.error.message === 'string' && 'details' in b.error;
  } catch {
    return false;
  }
}
