/**
 * Declarative routes: one definition gives the Koa handler its validated input and gives the
 * OpenAPI document its operation, so the two cannot disagree. Feature areas export RouteDef[]s.
 */
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import { z } from 'zod';
import { DomainError, type FieldIssue } from '../errors/index.js';
import { didYouMean } from './did-you-mean.js';
import type { LaneAnswer } from './lane.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
  /** Further representations of the same response by content type (e.g. text/html beside JSON). */
  alternatives?: Record<string, z.ZodType>;
  /** Response headers; `required: true` for a header present on every such response (default: may be absent). */
  headers?: Record<string, { description: string; schema?: z.ZodType; required?: boolean }>;
}

interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

export interface RouteDef<P = any, Q = any, B = any> {
  method: Method;
  /** Koa-router path relative to the mount point, e.g. `/news/:id/`. */
  path: string;
  /** `api` routes live under /api/v1; `root` routes at the host root. */
  mount?: 'api' | 'root';
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Request content types accepted for the body (default application/json). */
  bodyTypes?: string[];
  /** Security requirement names for the document (see openapi.ts securitySchemes). */
  security?: string[][];
  responses: Record<number, ResponseSpec>;
  /**
   * Who may call: `public` (default; credentials are read when present, invalid ones are ignored),
   * `user` (any authenticated caller; 401 otherwise), `editor` / `staff` (that role; 403 otherwise).
   * The caller is at ctx.state.user (AuthUser from src/identity/auth-middleware.ts) when authenticated.
   */
  auth?: 'public' | 'user' | 'editor' | 'staff';
  /** Per-client-IP limit, e.g. { key: 'provenance-check', points: 30, durationS: 60 } (Redis, shared by all web processes). */
  rateLimit?: { key: string; points: number; durationS: number };
  /** Not counted against the daily quota (e.g. the OpenAPI document). */
  unmetered?: boolean;
  /**
   * The route needs only PostgreSQL (e.g. GET /events/, which must work while Redis is down): when
   * Redis cannot count the daily quota, the request goes through uncounted instead of 503.
   */
  quotaFailOpen?: boolean;
  /**
   * The memory lane (src/platform/http/lane.ts), for a GET without credentials or Origin: synchronously, how
   * to answer it from this process's memory exactly as the handler would, or undefined to serve it
   * the usual way. No side effects until the returned function runs. Only on public routes without
   * rateLimit or `before`.
   */
  lane?: (ctx: Context) => LaneAnswer;
  /** Middlewares run after auth and rate limits, before validation. */
  before?: Middleware[];
  handler: (ctx: Context, input: RouteInput<P, Q, B>) => Promise<void> | void;
}

/** Counted against the daily quota: every /api/v1 route not marked unmetered. */
export function isMetered(def: RouteDef): boolean {
  return (def.mount ?? 'api') === 'api' && !def.unmetered;
}

export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined>(def: RouteDef<P, Q, B>): RouteDef<P, Q, B> {
  return def;
}

/** The JSON type of a received value, as a validation message names it ("array", "null", "number"...). */
function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** The value at an issue's path in the input (undefined where the input has nothing there). */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/** Every type a failed union of plain types expected (`string or null`), or null when a branch failed otherwise. */
function unionExpected(issue: z.core.$ZodIssue): string | null {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return null;
  const expected = issue.errors.map((branch) => (branch.length === 1 && branch[0].code === 'invalid_type' && branch[0].path.length === 0 ? branch[0].expected : null));
  return expected.every((e) => e !== null) ? [...new Set(expected)].join(' or ') : null;
}

/**
 * A zod issue as a field issue. A value of the wrong type names what was expected and what came
 * (`expected string, got number`); an absent one is `required`. A refinement may give its own field
 * code as `params.code` (e.g. `forbidden_character` from the shared text schema).
 */
function fieldIssue(path: string, issue: z.core.$ZodIssue, input: unknown): FieldIssue {
  const expected = issue.code === 'invalid_type' ? issue.expected : unionExpected(issue);
  if (expected !== null) {
    const received = valueAt(input, issue.path);
    if (received === undefined) return { path, code: 'required', message: 'is required' };
    return { path, code: 'invalid_type', message: `expected ${expected}, got ${typeOf(received)}` };
  }
  const own = issue.code === 'custom' && typeof issue.params?.code === 'string' ? issue.params.code : null;
  return { path, code: own ?? issue.code, message: issue.message };
}

type SchemaDef = { type: string; innerType?: z.ZodType; in?: z.ZodType; shape?: Record<string, z.ZodType>; element?: z.ZodType };
const defOf = (schema: z.ZodType | undefined) => (schema as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The keys of the object schema at `path` inside `schema` (through optional, default, pipe... and arrays); [] when it is not one. */
function knownKeysAt(schema: z.ZodType | undefined, path: readonly PropertyKey[]): string[] {
  let def = defOf(schema);
  for (let i = 0; def && i <= path.length;) {
    if (WRAPPERS.has(def.type)) def = defOf(def.innerType);
    else if (def.type === 'pipe') def = defOf(def.in);
    else if (i === path.length) return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
    else if (def.type === 'object') def = defOf(def.shape?.[String(path[i++])]);
    else if (def.type === 'array') {
      def = defOf(def.element);
      i++;
    } else return [];
  }
  return [];
}

/** An unknown key: `unknown_field`, with the known name it most likely stands for. */
function unknownKeyIssue(where: 'params' | 'query' | 'body', path: readonly PropertyKey[], key: string, known: string[]): FieldIssue {
  const message = `unknown ${where === 'query' ? 'parameter' : 'field'} "${key}"`;
  const suggestion = didYouMean(key, known);
  const at = [where, ...path.map(String), key].join('.');
  return suggestion ? { path: at, code: 'unknown_field', message: `${message}; did you mean "${suggestion}"?`, suggestion } : { path: at, code: 'unknown_field', message };
}

function issuesOf(where: 'params' | 'query' | 'body', schema: z.ZodType, err: z.ZodError, input: unknown): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of err.issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) out.push(unknownKeyIssue(where, issue.path, key, known));
      continue;
    }
    out.push(fieldIssue([where, ...issue.path.map(String)].join('.'), issue, input));
  }
  return out;
}

export function validationError(issues: FieldIssue[]): DomainError {
  const names = [...new Set(issues.map((i) => i.path))].join(', ');
  return new DomainError('validation_failed', `invalid request: ${names}`, { fields: issues });
}

function parsePart<T>(where: 'params' | 'query' | 'body', schema: z.ZodType<T> | undefined, value: unknown, issues: FieldIssue[]): T {
  if (!schema) return undefined as T;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  issues.push(...issuesOf(where, schema, r.error, value));
  return undefined as T;
}

/** A parameterless route as mounted: its full path (with the router's prefix) and its middleware. */
interface StaticRoute {
  router: Router;
  method: string;
  path: string;
  name: string;
  middleware: Middleware[];
}

/**
 * Register definitions on a router; validation failures become one 400 listing every field.
 * `guards(def)` supplies the middlewares that enforce the def's declared auth and rate limit.
 * Returns the routes without parameters, for staticRouteFastPath.
 */
export function mountRoutes(router: Router, defs: RouteDef[], guards: (def: RouteDef) => Middleware[] = () => [], prefix = ''): StaticRoute[] {
  const statics: StaticRoute[] = [];
  for (const def of defs) {
    const validate: Middleware = async (ctx) => {
      const issues: FieldIssue[] = [];
      if (def.body && def.bodyTypes === undefined && ctx.request.length && !ctx.is('application/json')) {
        throw new DomainError('unsupported_media_type', 'send the body as application/json');
      }
      const params = parsePart('params', def.params, ctx.params ?? {}, issues);
      const query = parsePart('query', def.query, ctx.query ?? {}, issues);
      const body = parsePart('body', def.body, ctx.request.body ?? {}, issues);
      if (issues.length) throw validationError(issues);
      await def.handler(ctx, { params, query, body });
    };
    const middleware = [...guards(def), ...(def.before ?? []), validate];
    router.register(def.path, [def.method.toUpperCase()], middleware, { name: def.operationId });
    if (STATIC_PATH.test(def.path)) statics.push({ router, method: def.method.toUpperCase(), path: `${prefix}${def.path}`, name: def.operationId, middleware });
  }
  return statics;
}

const STATIC_PATH = /^[A-Za-z0-9/_.-]+$/;

/**
 * A front for the routers' `routes()`: a request whose method and exact path name a route without
 * parameters goes straight to that route's middleware, composed once at start-up, instead of each
 * router testing every route's pattern and composing a chain per request (a few per cent of the
 * CPU of a cached feed request with ~80 routes). Built from the route definitions as mounted
 * (mountRoutes' result) and the routers' public `match()`: a route is taken only when it is its
 * router's single match for its own path and method and no earlier router matches that path at
 * all, so the outcome is the routers' own; everything else (parameters, HEAD, a trailing-slash
 * variant, 404/405) falls through. Mount it before the routers, which must be mounted in the order
 * given. Sets what the router sets that the app reads (its documented context fields): params,
 * routerPath (the metrics label) and routerName.
 */
export function staticRouteFastPath(routers: Router[], statics: StaticRoute[]): Middleware {
  const table = new Map<string, Middleware>();
  for (const r of statics) {
    const key = `${r.method} ${r.path}`;
    const i = routers.indexOf(r.router);
    if (i < 0 || r.method === 'HEAD' || table.has(key)) continue;
    if (r.router.match(r.path, r.method).pathAndMethod.length !== 1) continue;
    if (routers.slice(0, i).some((earlier) => earlier.match(r.path, r.method).path.length > 0)) continue;
    const chain = compose(r.middleware);
    const { path, name } = r;
    table.set(key, (ctx, next) => {
      const c = ctx as Context & { routerPath?: string; routerName?: string };
      c.params = {};
      (c.request as { params?: Record<string, string> }).params = c.params;
      c.routerPath = path;
      c.routerName = name;
      return chain(ctx, next);
    });
  }
  return (ctx, next) => {
    const hit = table.get(`${ctx.method} ${ctx.path}`);
    return hit ? hit(ctx, next) : next();
  };
}

/**
 * Query-string integer with bounds; accepts "5", rejects "5.5", "x", "". With a default its type is
 * `number` (absent means the default); without, `number | undefined`.
 */
export function queryInt(opts: { min: number; max: number; default: number }): ReturnType<typeof queryIntWithDefault>;
export function queryInt(opts: { min: number; max: number; default?: undefined }): ReturnType<typeof queryIntOptional>;
export function queryInt(opts: { min: number; max: number; default?: number }) {
  return opts.default === undefined ? queryIntOptional(opts) : queryIntWithDefault({ ...opts, default: opts.default });
}

function queryIntBase(opts: { min: number; max: number }) {
  return z
    .string()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(opts.min).max(opts.max));
}

function queryIntOptional(opts: { min: number; max: number }) {
  return queryIntBase(opts).optional();
}

function queryIntWithDefault(opts: { min: number; max: number; default: number }) {
  return queryIntBase(opts)
    .optional()
    .transform((v) => v ?? opts.default);
}
