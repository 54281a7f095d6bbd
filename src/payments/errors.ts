/**
 * Every way a payment can be refused, each with its own stable code (README "Errors"). Payment
 * problems are 402 with a fresh PAYMENT-REQUIRED header, so an x402 client can sign again; a
 * backend we cannot reach is 503. `x402Reason` goes into the PAYMENT-REQUIRED `error` field and
 * uses the reason strings of @x402/evm's exact-scheme facilitator where one exists. The codes and
 * their statuses are in the one registry (src/platform/errors/codes.ts, area Payments).
 */
import type { ErrorCode } from '../platform/errors/codes.js';
import { DomainError } from '../platform/errors/domain-error.js';

/** The codes of the Payments area of the registry (src/platform/errors/codes.ts). */
type PaymentErrorCode = Extract<ErrorCode, `payment${string}` | 'api_key_tier_insufficient'>;

/**
 * `refused`: the payment is not acceptable (402 with a fresh PAYMENT-REQUIRED); `malformed`: a
 * PAYMENT-SIGNATURE that does not decode (400, as the x402 v2 HTTP transport says); `unavailable`:
 * a service the check needs cannot be reached (503, nothing consumed).
 */
type PaymentRejectionKind = 'refused' | 'malformed' | 'unavailable';

export class PaymentRejection extends DomainError {
  declare readonly code: PaymentErrorCode;
  declare readonly details: Record<string, unknown> | null;
  constructor(
    code: PaymentErrorCode,
    message: string,
    readonly x402Reason: string = code,
    details: Record<string, unknown> | null = null,
    readonly rejection: PaymentRejectionKind = 'refused',
    headers: Record<string, string> = {},
  ) {
    super(code, message, details, { headers, kind: rejection });
    this.name = 'PaymentRejection';
  }
}

export const reject = (code: PaymentErrorCode, message: string, x402Reason?: string, details: Record<string, unknown> | null = null) =>
  new PaymentRejection(code, message, x402Reason ?? code, details);

/** A malformed PAYMENT-SIGNATURE: 400, as the x402 v2 HTTP transport specifies ("Invalid Payment"). */
export const malformed = (message: string, details: Record<string, unknown> | null = null) =>
  new PaymentRejection('payment_invalid_encoding', message, 'invalid_payload', details, 'malformed');

export const unavailable = (code: PaymentErrorCode, message: string, details: Record<string, unknown> | null = null) =>
  new PaymentRejection(code, message, code, details, 'unavailable', { 'Retry-After': '5' });
