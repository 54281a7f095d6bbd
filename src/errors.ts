/**
 * Errors are data: domain and route code throw AppError(status, code, message, details); one
 * middleware renders every error as {"error": {"code", "message", "details"}}. A 500 never carries
 * a stack, SQL or a driver message: only "internal error" and the request id.
 */
import type { Middleware } from 'koa';
import type { Logger } from './logger.js';

/** Field-level problem in a validation error: `path` is the field ("body.url", "query.page"). */
export interface FieldIssue {
  path: string;
  code: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/**
 * Every error code the HTTP layer itself produces. Feature areas add their own codes next to their
 * routes; README's "Errors" section lists them all.
 */
export const httpErrorCodes = {
  validation_failed: 'A parameter or body field is missing, of the wrong type or out of range (details lists each field).',
  malformed_json: 'The request body is not valid JSON.',
  unsupported_media_type: 'The body has a content type this endpoint does not accept.',
  payload_too_large: 'The request body exceeds the size limit.',
  bad_content_encoding: 'The body is not valid for its Content-Encoding (gzip, deflate or br that does not decompress).',
  not_found: 'No route matches the path.',
  bad_request: 'A malformed request refused by the HTTP layer before any route ran (the generic code of a bare 400).',
  unauthorized: 'The generic code of a bare 401 from the HTTP layer.',
  forbidden: 'The generic code of a bare 403 from the HTTP layer.',
  method_not_allowed: 'The route exists but not with this method (see the Allow header).',
  not_implemented: 'The HTTP method is not supported by this server.',
  invalid_value: 'A value was refused by the database (e.g. a NUL byte in text, a number out of range).',
  service_unavailable: 'A backing service (PostgreSQL or Redis) is unreachable; retry later.',
  internal_error: 'An unexpected failure; quote the request id when reporting it.',
} as const;

function statusCode(status: number): string {
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

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // PostgreSQL: admin/crash shutdown, cannot connect now (starting or shutting down), too many
  // connections, and the connection-exception class 08.
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
const UNAVAILABLE_MESSAGE =
  /Connection is closed|Stream isn't writeable|connect ECONNREFUSED|Connection terminated|timeout exceeded when trying to connect|max retries per request|Command timed out|not queryable|Client was closed and is not queryable|Connection ended|LOADING Redis is loading|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command/i;

/**
 * Connection-level failures of pg or ioredis (and of BullMQ or rate-limiter calls over them): the
 * service is degraded, not broken, so the client gets 503 service_unavailable with Retry-After.
 * Looks through `cause` and AggregateError members (Node reports a refused dual-stack connect so).
 */
export function isBackendUnavailable(err: any, depth = 0): boolean {
  if (!err || depth > 3) return false;
  if (UNAVAILABLE_CODES.has(err.code)) return true;
  if (UNAVAILABLE_MESSAGE.test(String(err.message ?? ''))) return true;
  if (Array.isArray(err.errors) && err.errors.some((e: unknown) => isBackendUnavailable(e, depth + 1))) return true;
  return err.cause !== undefined && err.cause !== err && isBackendUnavailable(err.cause, depth + 1);
}

/** SQLSTATE class 22 (data exception) from pg: invalid byte sequence, numeric out of range, bad datetime... */
function isPgDataException(err: any): boolean {
  return typeof err?.code === 'string' && /^22[0-9A-Z]{3}$/.test(err.code) && typeof err?.severity === 'string';
}

export function errorBody(code: string, message: string, details: unknown = null) {
  return { error: { code, message, details } };
}

export function errorMiddleware(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new AppError(404, 'not_found', `no route for ${ctx.method} ${ctx.path}`);
        if (ctx.status === 405) throw new AppError(405, 'method_not_allowed', `method ${ctx.method} not allowed on ${ctx.path}`);
        if (ctx.status === 501) throw new AppError(501, 'not_implemented', `method ${ctx.method} is not supported`);
      }
    } catch (raw) {
      const err = raw as any;
      const requestId = ctx.state.requestId as string | undefined;
      let status: number;
      let body: ReturnType<typeof errorBody>;
      if (err instanceof AppError) {
        status = err.status;
        body = errorBody(err.code, err.message, err.details);
        for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      } else if (err?.type === 'entity.parse.failed' || (err?.status === 400 && err?.body !== undefined && /JSON/i.test(err?.message ?? ''))) {
        status = 400;
        body = errorBody('malformed_json', 'request body is not valid JSON');
      } else if (err?.type === 'entity.too.large' || err?.status === 413 || err?.httpCode === 413) {
        status = 413;
        body = errorBody('payload_too_large', 'request body is too large');
      } else if (typeof err?.code === 'string' && /^(Z_|ERR__ERROR_FORMAT|ERR_BROTLI)/.test(err.code)) {
        // zlib/brotli failed inflating a request body sent with Content-Encoding.
        status = 400;
        body = errorBody('bad_content_encoding', 'the request body does not decompress with its Content-Encoding');
      } else if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500 && err.expose !== false) {
        // koa / router / co-body HTTP errors (405 with Allow, 415, 400 from body parsing...).
        status = err.status;
        const code = statusCode(status);
        body = errorBody(code, status === 405 ? `method ${ctx.method} not allowed on ${ctx.path}` : String(err.message || code));
        if (err.headers) for (const [k, v] of Object.entries(err.headers as Record<string, string>)) ctx.set(k, v);
      } else if (isPgDataException(err)) {
        // PostgreSQL refused a value the client sent (NUL byte in text, out-of-range number...):
        // the request was bad, not the server. Validation should catch these first; this is the net.
        status = 400;
        body = errorBody('invalid_value', 'a parameter holds a value the service cannot store or compare (e.g. a NUL byte or an out-of-range number)');
        log.warn({ pgcode: err.code, requestId, path: ctx.path }, 'database rejected a client value');
      } else if (isBackendUnavailable(err)) {
        status = 503;
        body = errorBody('service_unavailable', 'a backing service is unavailable; retry shortly', { request_id: requestId ?? null });
        ctx.set('Retry-After', '5');
        log.warn({ err: { message: err?.message, code: err?.code }, requestId }, 'backend unavailable');
      } else {
        status = 500;
        body = errorBody('internal_error', 'internal error', { request_id: requestId ?? null });
        log.error({ err, requestId, path: ctx.path, method: ctx.method }, 'unhandled error');
      }
      ctx.status = status;
      ctx.type = 'application/json';
      ctx.body = body;
    }
  };
}
