/**
 * Response validation against the OpenAPI document: every response the service sends to a test
 * (status, documented headers, body) must be one the document describes, so the document cannot
 * drift from the code. The document is built in-process by the same function that serves
 * /api/v1/openapi.json; each (operation, status, content type) validator is compiled once per
 * worker with Ajv's JSON Schema 2020-12 dialect, the dialect of OpenAPI 3.1.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import standaloneCodeModule from 'ajv/dist/standalone/index.js';
import { loadConfig } from '../../src/config.js';
import { buildOpenApi } from '../../src/http/openapi.js';
import { errorCodes, errorDescriptions as allErrorCodes, isErrorCode, type ErrorCodeSpec } from '../../src/errors/codes.js';
import { allRoutes } from '../../src/routes/index.js';

const standaloneCode = ((standaloneCodeModule as unknown as { default?: unknown }).default ?? standaloneCodeModule) as (ajv: Ajv2020, refs: Record<string, string>) => string;

/** Validators compiled once for the whole run (globalSetup): the document and a module of functions. */
export interface Precompiled {
  doc: Json;
  validators: Record<string, ValidateFunction>;
  /** validator key (see ResponseChecker.validator) -> export name in the module. */
  names: Record<string, string>;
}

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
  // Routes only read their dependencies when a request arrives; `db` is a placeholder object (some
  // middlewares key per-database caches by it at construction).
  return buildOpenApi(allRoutes({ config, db: {} } as never), { publicBaseUrl: config.PUBLIC_BASE_URL });
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

  constructor(
    doc: Json = buildTestDocument(),
    private readonly precompiled?: Precompiled,
  ) {
    this.doc = doc;
    this.ajv = newAjv(false);
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
    const name = this.precompiled?.names[key];
    if (!v && name) {
      v = this.precompiled!.validators[name];
      this.compiled.set(key, v);
    }
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
    const exact = this.ops.find((o) => o.methods[method] && o.regex.test(s.path));
    // Matched only once the repeated slashes are gone: a 404 there is the router not matching after all.
    const op = exact ?? (s.status === 404 ? undefined : this.ops.find((o) => o.methods[method] && o.regex.test(trimmed)));
    let response: Json;
    let key: string;
    if (!op) {
      // No operation: the router's own 404/405/501, or what the middleware in front of every route
      // answers before routing (credentials 401, cross-site check 403, body parser 400/413/415,
      // backends 503, 500), all with the error body.
      if (![400, 401, 403, 404, 405, 413, 415, 500, 501, 503].includes(s.status)) return [`${where}: no operation in the document for this method and path`];
      response = UNROUTED;
      key = 'unrouted';
    } else {
      response = op.methods[method].responses?.[String(s.status)] ?? op.methods[method].responses?.default;
      if (!response) {
        return [
          `${where}: status ${s.status} is not documented for ${method.toUpperCase()} ${op.template} (documented: ${Object.keys(op.methods[method].responses ?? {}).join(', ')})`,
        ];
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
      problems.push(`${where}: error code ${code} is not in src/errors/codes.ts (README table, document description)`);
    } else if (typeof code === 'string' && isErrorCode(code)) {
      // The registry is the one source of a code's status (a kind's own status where it has one).
      const spec: ErrorCodeSpec = errorCodes[code];
      const allowed = [spec.status, ...Object.values(spec.statusByKind ?? {})];
      if (!allowed.includes(s.status)) problems.push(`${where}: error code ${code} answered ${s.status}; src/errors/codes.ts says ${allowed.join(' or ')}`);
    }
    const v = this.validator(`${key} body ${type}`, media.schema);
    if (!v(body)) {
      const errs = (v.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '/'} ${e.message}${e.params && Object.keys(e.params).length ? ' ' + JSON.stringify(e.params) : ''}`);
      problems.push(`${where}: body does not match the document: ${errs.join('; ')}; body: ${s.text.slice(0, 300)}`);
    }
    return problems;
  }
}

const UNROUTED = { content: { 'application/json': { schema: { $ref: `${REF_PREFIX}Error` } } } };

// strict: false: OpenAPI keywords (example, discriminator...) are annotations to a validator.
// Formats are annotations too (not asserted).
function newAjv(source: boolean): Ajv2020 {
  return new Ajv2020({ strict: false, allErrors: false, logger: false, validateFormats: false, ...(source ? { code: { source: true, esm: true } } : {}) });
}

/** Every (key, schema) the checker validates with: response bodies and headers of every operation. */
function checkSchemas(doc: Json): [string, Json][] {
  const out: [string, Json][] = [['unrouted body application/json', UNROUTED.content['application/json'].schema]];
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(item)) {
      for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
        const key = `${method} ${template} ${status}`;
        for (const [name, h] of Object.entries<Json>(r.headers ?? {})) if (h.schema) out.push([`${key} header ${name}`, h.schema]);
        for (const [type, m] of Object.entries<Json>(r.content ?? {})) if (m.schema) out.push([`${key} body ${type}`, m.schema]);
      }
    }
  }
  return out;
}

/**
 * Run once before the workers start (test/support/openapi-setup.ts): build the document, compile
 * every validator into one ES module (Ajv standalone code) under `dir`, and return the file that
 * describes them. Workers then import compiled functions instead of compiling per test file.
 */
export function precompileResponseChecks(dir: string): string {
  const doc = buildTestDocument();
  const ajv = newAjv(true);
  for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) ajv.addSchema({ ...absolutizeRefs(schema), $id: refId(name) });
  const names: Record<string, string> = {};
  const exportsById: Record<string, string> = {};
  checkSchemas(doc).forEach(([key, schema], i) => {
    const id = `urn:squid:check:${i}`;
    ajv.addSchema(typeof schema === 'object' ? { ...absolutizeRefs(schema), $id: id } : { $id: id, ...(schema === false ? { not: {} } : {}) });
    names[key] = `v${i}`;
    exportsById[`v${i}`] = id;
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/validators.mjs`, standaloneCode(ajv, exportsById));
  writeFileSync(`${dir}/checks.json`, JSON.stringify({ doc, names, module: `${dir}/validators.mjs` }));
  return `${dir}/checks.json`;
}

/** Load what precompileResponseChecks wrote. */
export async function loadPrecompiled(file: string): Promise<Precompiled> {
  const { doc, names, module } = JSON.parse(readFileSync(file, 'utf8'));
  const validators = (await import(pathToFileURL(module).href)) as Record<string, ValidateFunction>;
  return { doc, names, validators };
}

/**
 * One checker per test file, from the run's precompiled validators when there are (see
 * openapi-setup.ts), else compiling on first use.
 */
let shared: ResponseChecker | undefined;
export function responseChecker(precompiled?: Precompiled): ResponseChecker {
  shared ??= precompiled ? new ResponseChecker(precompiled.doc, precompiled) : new ResponseChecker();
  return shared;
}
