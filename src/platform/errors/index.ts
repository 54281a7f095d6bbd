/**
 * The HTTP side of the one error model: domain, query, job and route code throws `DomainError(code,
 * message, details)` (src/platform/errors/domain-error.ts), and this middleware is the one place that maps a
 * code to its HTTP status (from the registry, src/platform/errors/codes.ts) and renders every error as
 * {"error": {"code", "message", "details"}}. Errors of the HTTP stack itself (koa, the router, body
 * parsing), PostgreSQL data exceptions and unreachable backends are translated here too. A 500 never
 * carries a stack, SQL or a driver message: only "internal error" and the request id.
 */
import type { Middleware } from 'koa';
import { errorCodes, type ErrorCode } from './codes.js';
import { isBackendUnavailable, type BackendProbe } from './backend.js';
import { DomainError } from './domain-error.js';
import type { Logger } from '../logger.js';

export { DomainError } from './domain-error.js';
/** Field-level problem in a validation error: `path` is the field ("body.url", "query.page"). */
export interface FieldIssue {
  path: string;
  code: string;
  message: string;
  /** For an unknown name: the known name it most likely stands for (src/platform/http/did-you-mean.ts). */
  suggestion?: string;
}

/** The HTTP status of an error code (of this error's kind, where the registry gives the kind its own). */
export function httpStatusOf(err: Pick<DomainError, 'code' | 'kind'>): number {
  const spec: { status: number; statusByKind?: Record<string, number> } = errorCodes[err.code];
  return (err.kind !== null && spec.statusByKind?.[err.kind]) || spec.status;
}

/** The generic code of a bare HTTP status from koa, the router or the body parser. */
function statusCode(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    default:
      return status >= 500 ? 'internal_error' : 'bad_request';
  }
}

/** SQLSTATE class 22 (data exception) from pg: invalid byte sequence, numeric out of range, bad datetime... */
function isPgDataException(err: any): boolean {
  return typeof err?.code === 'string' && /^22[0-9A-Z]{3}$/.test(err.code) && typeof err?.severity === 'string';
}

export function errorBody(code: ErrorCode, message: string, details: unknown = null) {
  return { error: { code, message, details } };
}

/** An error as the client gets it: status, {"error": ...} body and headers to set. */
export interface RenderedError {
  status: number;
  body: ReturnType<typeof errorBody>;
  headers: Record<string, string>;
}

/** Where the error happened: for messages, logs and the request id of a 500. */
interface ErrorScene {
  method: string;
  path: string;
  requestId?: string;
}

/**
 * The one mapping from a thrown error to its response (see the module comment): the error
 * middleware renders HTTP requests with it, and MCP tool calls their error results.
 */
export function renderError(raw: unknown, scene: ErrorScene, log: Logger, probe: BackendProbe = {}): RenderedError {
  const err = raw as any;
  const { requestId } = scene;
  if (err instanceof DomainError) return { status: httpStatusOf(err), body: errorBody(err.code, err.message, err.details), headers: { ...err.headers } };
  if (err?.type === 'entity.parse.failed' || (err instanceof SyntaxError && (err as { status?: number }).status === 400)) {
    // co-body (under koa-body) rethrows JSON.parse's SyntaxError with status 400 and the raw body.
    return { status: 400, body: errorBody('malformed_json', 'request body is not valid JSON'), headers: {} };
  }
  if (err?.type === 'entity.too.large' || err?.status === 413 || err?.httpCode === 413) {
    return { status: 413, body: errorBody('payload_too_large', 'request body is too large'), headers: {} };
  }
  if (typeof err?.code === 'string' && /^(Z_|ERR__ERROR_FORMAT|ERR_BROTLI)/.test(err.code)) {
    // zlib/brotli failed inflating a request body sent with Content-Encoding.
    return { status: 400, body: errorBody('bad_content_encoding', 'the request body does not decompress with its Content-Encoding'), headers: {} };
  }
  if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500 && err.expose !== false) {
    // koa / router / co-body HTTP errors (405 with Allow, 415, 400 from body parsing...).
    const status: number = err.status;
    const code = statusCode(status);
    const body = errorBody(code, status === 405 ? `method ${scene.method} not allowed on ${scene.path}` : String(err.message || code));
    return { status, body, headers: { ...((err.headers as Record<string, string> | undefined) ?? {}) } };
  }
  if (isPgDataException(err)) {
    // PostgreSQL refused a value the client sent (NUL byte in text, out-of-range number...):
    // the request was bad, not the server. Validation should catch these first; this is the net.
    log.warn({ pgcode: err.code, requestId, path: scene.path }, 'database rejected a client value');
    return {
      status: 400,
      body: errorBody('invalid_value', 'a parameter holds a value the service cannot store or compare (e.g. a NUL byte or an out-of-range number)'),
      headers: {},
    };
  }
  if (isBackendUnavailable(err, probe)) {
    log.warn({ err: { message: err?.message, code: err?.code }, requestId }, 'backend unavailable');
    return {
      status: 503,
      body: errorBody('service_unavailable', 'a backing service is unavailable; retry shortly', { request_id: requestId ?? null }),
      headers: { 'Retry-After': '5' },
    };
  }
  log.error({ err, requestId, path: scene.path, method: scene.method }, 'unhandled error');
  return { status: 500, body: errorBody('internal_error', 'internal error', { request_id: requestId ?? null }), headers: {} };
}

export function errorMiddleware(log: Logger, probe: BackendProbe = {}): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new DomainError('not_found', `no route for ${ctx.method} ${ctx.path}`);
        if (ctx.status === 405) throw new DomainError('method_not_allowed', `method ${ctx.method} not allowed on ${ctx.path}`);
        if (ctx.status === 501) throw new DomainError('not_implemented', `method ${ctx.method} is not supported`);
      }
    } catch (raw) {
      const r = renderError(raw, { method: ctx.method, path: ctx.path, requestId: ctx.state.requestId as string | undefined }, log, probe);
      for (const [k, v] of Object.entries(r.headers)) ctx.set(k, v);
      // An error answered before the request body was read to the end (413 part-way through a
      // chunked or compressed body, a refusal before parsing): the rest of the body is still on the
      // connection, so it is closed after this answer instead of kept alive behind unread bytes.
      if (ctx.req?.complete === false) ctx.set('Connection', 'close');
      ctx.status = r.status;
      ctx.type = 'application/json';
      ctx.body = r.body;
    }
  };
}
