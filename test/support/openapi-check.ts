/**
 * Response validation against the OpenAPI document: every response the service sends to a test
 * (status, documented headers, body) must be one the document describes, so the document cannot
 * drift from the code. The document is built once per run (openapi-setup.ts writes it, with the
 * listed error codes, to a JSON artefact); each test file reads that artefact on its first checked
 * response and compiles the validator of each (operation, status, header or content type) on first
 * use, with Ajv's JSON Schema 2020-12 dialect, the dialect of OpenAPI 3.1. Nothing here imports
 * src/ (a unit test file pays nothing for the layer, an integration file only for what it hits).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';

/** What the global set-up writes: the document and every listed error code. */
export interface CheckArtefact {
  doc: Json;
  /** Every registered error code with the statuses it may answer (src/platform/errors/codes.ts). */
  errorCodes: Record<string, number[]>;
}

type Json = any;

interface ResponseSample {
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
  private readonly errorCodes: ReadonlyMap<string, number[]>;
  private readonly ops: Operation[];
  private readonly compiled = new Map<string, ValidateFunction>();
  private ajvInstance: Ajv2020 | undefined;

  constructor(artefact: CheckArtefact) {
    this.doc = artefact.doc;
    this.errorCodes = new Map(Object.entries(artefact.errorCodes));
    this.ops = Object.entries<Json>(this.doc.paths ?? {})
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

  /** The validator instance, made on the first validation (component schemas registered, not compiled). */
  private get ajv(): Ajv2020 {
    if (!this.ajvInstance) {
      this.ajvInstance = newAjv();
      for (const [name, schema] of Object.entries<Json>(this.doc.components?.schemas ?? {})) {
        this.ajvInstance.addSchema({ ...absolutizeRefs(schema), $id: refId(name) });
      }
    }
    return this.ajvInstance;
  }

  /** The validator of one (operation, status, header or content type), compiled on first use. */
  private validator(key: string, schema: Json): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(typeof schema === 'object' ? absolutizeRefs(schema) : schema);
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
    const allowed = typeof code === 'string' ? this.errorCodes.get(code) : undefined;
    if (typeof code === 'string' && !allowed) {
      problems.push(`${where}: error code ${code} is not in src/platform/errors/codes.ts (README table, document description)`);
    } else if (allowed && !allowed.includes(s.status)) {
      // The registry is the one source of a code's status (a kind's own status where it has one).
      problems.push(`${where}: error code ${code} answered ${s.status}; src/platform/errors/codes.ts says ${allowed.join(' or ')}`);
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
// Formats are annotations too (not asserted). validateSchema: false: the document's schemas come
// from zod and are checked by the document tests, not once more per file. Ajv is loaded on the first
// validation only (a file that never receives a response does not load it).
function newAjv(): Ajv2020 {
  const { Ajv2020: Ajv } = createRequire(import.meta.url)('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  return new Ajv({ strict: false, allErrors: false, logger: false, validateFormats: false, validateSchema: false });
}

/** Read what the global set-up wrote (openapi-document.ts writeCheckArtefact). */
export function loadCheckArtefact(file: string): CheckArtefact {
  return JSON.parse(readFileSync(file, 'utf8')) as CheckArtefact;
}

/** One checker per test file, made from the run's artefact on the file's first checked response. */
let shared: ResponseChecker | undefined;
export function responseChecker(artefactFile: string): ResponseChecker {
  shared ??= new ResponseChecker(loadCheckArtefact(artefactFile));
  return shared;
}
