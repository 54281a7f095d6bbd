/**
 * Is a failure the service being degraded (a backing service unreachable) rather than broken? The
 * answer comes from what the error is, never from its message text:
 *  - Node's system error codes (ECONNREFUSED...) and PostgreSQL's SQLSTATE (class 08, 57P0x, 53300);
 *  - `BackendUnavailableError`, into which src/platform/db.ts translates pg's connection-level failures at
 *    the pool (pg raises those as plain `Error`s without a code);
 *  - ioredis's MaxRetriesPerRequestError (by its class name: the package does not export the class);
 *  - for ioredis's other connection failures (plain `Error`s: a closed connection, a command time-out,
 *    an unwritable stream) the state of the client at the time: the caller passes `redisDown`, true
 *    while the client is not `ready`.
 * `cause` chains and AggregateError members are looked through (Node reports a refused dual-stack
 * connect so).
 */

export class BackendUnavailableError extends Error {
  constructor(
    readonly backend: 'postgres' | 'redis',
    cause: unknown,
  ) {
    super(`${backend} is unavailable`, { cause });
    this.name = 'BackendUnavailableError';
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

export interface BackendProbe {
  /** True while the Redis client is not connected and ready (reconnecting, closed, ending). */
  redisDown?: () => boolean;
}

export function isBackendUnavailable(err: unknown, probe: BackendProbe = {}): boolean {
  if (isConnectionFailure(err, 0)) return true;
  // ioredis rejects commands with plain Errors while its connection is down.
  return probe.redisDown?.() === true && isPlainError(err);
}

function isConnectionFailure(err: any, depth: number): boolean {
  if (!err || depth > 3) return false;
  if (err instanceof BackendUnavailableError) return true;
  if (typeof err.code === 'string' && UNAVAILABLE_CODES.has(err.code)) return true;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  if (Array.isArray(err.errors) && err.errors.some((e: unknown) => isConnectionFailure(e, depth + 1))) return true;
  return err.cause !== undefined && err.cause !== err && isConnectionFailure(err.cause, depth + 1);
}

/** An `Error` made by `new Error(...)` itself, not a subclass (TypeError, a driver's own class...). */
export function isPlainError(err: unknown): err is Error {
  return err instanceof Error && Object.getPrototypeOf(err) === Error.prototype;
}
