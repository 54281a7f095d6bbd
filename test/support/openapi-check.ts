/**
 * Response validation against the OpenAPI document: every response the service sends to a test
 * (status, documented headers, body) must be one the document describes, so the document cannot
 * drift from the code. The document is built in-process by the same function that serves
 * /api/v1/openapi.json; each (operation, status, content type) validator is compiled once per
 * worker with Ajv's JSON Schema 2020-12 dialect, the dialect of OpenAPI 3.1.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadConfig } from '../../src/config.js';
import { buildOpenApi } from '../../src/http/openapi.js';
import { allErrorCodes } from '../../src/routes/error-codes.js';
import { allRoutes } from '../../src/routes/index.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Json = any;

export interface ResponseSample {
  method: string;
  /** Path without the query string. */
  path: string;
  status: number;
  headers: Headers;
  /** The body text as received. */
  text: string;
}

interface Operation {
  template: string;
  regex: RegExp;
  params: number;
  methods: Record<string, Json>;
}

const REF_PREFIX = '#/components/schemas/';
const refId = (name: string) => `urn:squid:schema:${name}`;

/** The document the tests check against: built once per worker (module), like the served one. */
export function buildTestDocument(): Json {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: 'postgres://doc@127.0.0.1:1/doc',
    REDIS_URL: 'redis://127.0.0.1:1',
    JWT_SECRET: 'document-builder-secret-document-builder-secret',
  });
  return buildOpenApi(allRoutes({ config } as never), { publicBaseUrl: config.PUBLIC_BASE_URL, extraErrorCodes: allErrorCodes });
}

/** Rewrite component references to absolute ids so each schema compiles on its own. */
function absolutizeRefs(node: Json): Json {
  if (Array.isArray(node)) return node.map(absolutizeRefs);
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX) ? refId(v.slice(REF_PREFIX.length)) : absolutizeRefs(v);
    }
    return out;
  }
  return node;
}

export class ResponseChecker {
  readonly doc: Json;
  private readonly ajv: Ajv2020;
  private readonly ops: Operation[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: Json = buildTestDocument()) {
    this.doc = doc;
    // strict: false: OpenAPI keywords (example, discriminator...) are annotations to a validator.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(this.ajv);
    for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
      this.ajv.addSchema({ ...absolutizeRefs(schema), $id: refId(name) });
    }
    this.ops = Object.entries<Json>(doc.paths ?? {})
      .map(([template, item]) => {
        const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        return {
          template,
          regex: new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
          params: (template.match(/\{/g) ?? []).length,
          methods: item,
        };
      })
      // A static path wins over a templated one (/news/check before /news/{id}/).
      .sort((a, b) => a.params - b.params);
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(absolutizeRefs(schema));
      this.compiled.set(key, v);
    }
    return v;
  }

  /** Problems with one response; an empty list when the document describes it. */
  check(s: ResponseSample): string[] {
    const method = s.method.toLowerCase();
    const where = `${s.method} ${s.path} -> ${s.status}`;
    // As the router matches: exactly, else without repeated trailing slashes (koa-router is not
    // strict about a trailing slash).
    const trimmed = s.path.replace(/\/{2,}$/, '/');
    const op = this.ops.find((o) => o.methods[method] && o.regex.test(s.path)) ?? this.ops.find((o) => o.methods[method] && o.regex.test(trimmed));
    let response: Json;
    let key: string;
    if (!op) {
      // No operation: the router's own 404/405/501, or what the middleware in front of every route
      // answers before routing (credentials 401, cross-site check 403, body parser 400/413/415,
      // backends 503, 500), all with the error body.
      if (![400, 401, 403, 404, 405, 413, 415, 500, 501, 503].includes(s.status)) return [`${where}: no operation in the document for this method and path`];
      response = { content: { 'application/json': { schema: { $ref: `${REF_PREFIX}Error` } } } };
      key = 'unrouted';
    } else {
      response = op.methods[method].responses?.[String(s.status)] ?? op.methods[method].responses?.default;
      if (!response) {
        return [`${where}: status ${s.status} is not documented for ${method.toUpperCase()} ${op.template} (documented: ${Object.keys(op.methods[method].responses ?? {}).join(', ')})`];
      }
      key = `${method} ${op.template} ${s.status}`;
    }
    const problems: string[] = [];
    for (const [name, h] of Object.entries<Json>(response.headers ?? {})) {
      const value = s.headers.get(name);
      if (value === null) {
        if (h.required) problems.push(`${where}: documented header ${name} is missing`);
        continue;
      }
      if (h.schema) {
        const v = this.validator(`${key} header ${name}`, h.schema);
        const t = h.schema.type;
        const typed = t === 'integer' || t === 'number' ? Number(value) : t === 'boolean' ? value === 'true' : value;
        if (!v(typed)) problems.push(`${where}: header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(v.errors)}`);
      }
    }
    const type = (s.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    const content: Record<string, Json> | undefined = response.content;
    if (!content) {
      if (type === 'application/json' && s.text.length > 0) problems.push(`${where}: a JSON body was sent but the document declares none`);
      return problems;
    }
    if (s.status === 204 || s.status === 304) return problems;
    const media = content[type] ?? content[`${type.split('/')[0]}/*`] ?? content['*/*'];
    if (!media) {
      problems.push(`${where}: content type ${JSON.stringify(type)} is not documented (documented: ${Object.keys(content).join(', ')})`);
      return problems;
    }
    if (!media.schema) return problems;
    let body: unknown = s.text;
    if (type === 'application/json' || type.endsWith('+json')) {
      try {
        body = JSON.parse(s.text);
      } catch {
        problems.push(`${where}: the body is not valid JSON`);
        return problems;
      }
    } else if (media.schema.type !== 'string') {
      // A binary or text body documented with a non-string schema (e.g. format: binary) is not parsed.
      return problems;
    }
    const code = s.status >= 400 ? (body as { error?: { code?: unknown } } | null)?.error?.code : undefined;
    if (typeof code === 'string' && !(code in allErrorCodes)) {
      problems.push(`${where}: error code ${code} is not in src/routes/error-codes.ts (README table, document description)`);
    }
    const v = this.validator(`${key} body ${type}`, media.schema);
    if (!v(body)) {
      const errs = (v.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ' ' + JSON.stringify(e.params) : ''}`);
      problems.push(`${where}: body does not match the document: ${errs.join('; ')}; body: ${s.text.slice(0, 300)}`);
    }
    return problems;
  }
}

let shared: ResponseChecker | undefined;
/** One checker per worker process (the document and its validators are built once). */
export function responseChecker(): ResponseChecker {
  shared ??= new ResponseChecker();
  return shared;
}
