/**
 * The one error type domain, query, job and route code throws. It carries a registered code, a
 * message for the client and optional details; it knows nothing of HTTP statuses: the error
 * middleware (src/platform/errors/index.ts) reads the status of `code` from the registry (src/platform/errors/codes.ts).
 * `headers` are only for what a protocol puts in headers (Retry-After, WWW-Authenticate,
 * PAYMENT-REQUIRED, PAYMENT-RESPONSE); the middleware is the one place that sets them.
 */
import { errorCodes, type ErrorCode } from './codes.js';

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly headers: Readonly<Record<string, string>>;
  /** A variant of the code that the registry may map to another status (`statusByKind`). */
  readonly kind: string | null;

  constructor(code: ErrorCode, message?: string, details: unknown = null, opts: { headers?: Record<string, string>; kind?: string } = {}) {
    super(message ?? defaultMessage(code));
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
    this.headers = opts.headers ?? {};
    this.kind = opts.kind ?? null;
  }
}

/** The registry's meaning of a code without its status prefix or suffix, as a fallback message. */
export function defaultMessage(code: ErrorCode): string {
  return errorCodes[code].description.replace(/^\d{3}(?: \([^)]*\))?:\s*/, '').replace(/\s*\(\d{3}\)(\.?)$/, '$1');
}
