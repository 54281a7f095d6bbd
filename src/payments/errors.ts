/**
 * Every way a payment can be refused, each with its own stable code (README "Errors"). Payment
 * problems are 402 with a fresh PAYMENT-REQUIRED header, so an x402 client can sign again; a
 * backend we cannot reach is 503. `x402Reason` goes into the PAYMENT-REQUIRED `error` field and
 * uses the reason strings of @x402/evm's exact-scheme facilitator where one exists.
 */

export const paymentErrorCodes = {
  payment_required:
    '402: the intel report (or a sponsored post) is paid: sign the PAYMENT-REQUIRED requirements and retry with PAYMENT-SIGNATURE, send X-Payment-Tx + X-Payment-From, or (report) use a builder/enterprise API key.',
  api_key_tier_insufficient: '402: a free-tier API key does not include the intel report; the builder tier does. Payment options as for payment_required.',
  payment_invalid_encoding:
    '400 (PAYMENT-SIGNATURE, as the x402 v2 HTTP transport specifies for a malformed payment payload) or 402 (X-Payment-Tx / X-Payment-From): the header is not base64 of an x402 v2 JSON payment payload with an EIP-3009 authorization, or the fallback header is malformed (details.header). PAYMENT-REQUIRED is sent either way.',
  payment_requirements_mismatch: '402: the payload is for another x402 version, scheme, network or asset than the requirements offered.',
  payment_invalid_signature: '402: the EIP-712 TransferWithAuthorization signature does not recover to authorization.from.',
  payment_wrong_recipient: '402: authorization.to (or accepted.payTo) is not our payTo address.',
  payment_wrong_amount: '402: authorization.value (or accepted.amount) differs from the price.',
  payment_expired: '402: authorization.validBefore has passed (or is less than 6 s away).',
  payment_not_yet_valid: '402: authorization.validAfter is in the future.',
  payment_replayed: '402: this authorization nonce or transaction hash has already paid for a request.',
  payment_payer_suspended: '402: a recent payment from this address failed to settle; its authorizations are refused for 24 h.',
  payment_rejected_by_facilitator: '402: (X402_VERIFY_MODE=facilitator) the facilitator refused the payment; details.reason is its invalidReason.',
  payment_settlement_failed:
    '402: (X402_SETTLEMENT_MODE=sync) the facilitator refused to settle the payment (details.reason, e.g. insufficient balance); PAYMENT-RESPONSE says success false with errorReason; the resource was not delivered.',
  payment_settlement_unavailable:
    '503: (X402_SETTLEMENT_MODE=sync) the facilitator could not be reached or failed (5xx); nothing was transferred and the resource was not delivered; retry with the same PAYMENT-SIGNATURE.',
  payment_settlement_pending:
    '503: (X402_SETTLEMENT_MODE=sync) the facilitator did not answer in time (or, on a retry, still cannot settle), so the transfer may or may not have happened; the resource was not delivered yet: retry with the same PAYMENT-SIGNATURE after Retry-After: once the payment has settled the retry delivers the resource once, without paying again (a payment that failed for good answers 402 payment_settlement_failed); details.status_url (GET /payments/{id}/) shows its state.',
  payment_tx_unknown: '402: no receipt for X-Payment-Tx on Ethereum mainnet (unknown or still pending).',
  payment_tx_failed: '402: the transaction reverted.',
  payment_tx_unconfirmed: '402: the transaction has fewer than MAINNET_MIN_CONFIRMATIONS confirmations (details.confirmations); retry later, the transaction is not consumed.',
  payment_tx_no_transfer: '402: the transaction has no USDC or USDT Transfer from X-Payment-From to payTo.',
  payment_insufficient: '402: the stablecoin transferred from X-Payment-From to payTo in that transaction is below the price.',
  payments_not_configured: '503: X402_PAY_TO is not set on this server; paid access is unavailable (builder keys still work for the report).',
  payment_fallback_unavailable: '503: the mainnet fallback cannot be checked (ETH_RPC_URL unset, unreachable, or not Ethereum mainnet).',
  payment_verifier_unavailable: '503: (X402_VERIFY_MODE=facilitator) the facilitator could not be reached; the payment was not consumed.',
  payment_not_found: '404: no payment with this id.',
} as const;

export type PaymentErrorCode = keyof typeof paymentErrorCodes;

export class PaymentRejection extends Error {
  constructor(
    readonly code: PaymentErrorCode,
    message: string,
    readonly x402Reason: string = code,
    readonly details: Record<string, unknown> | null = null,
    readonly status: 400 | 402 | 503 = 402,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'PaymentRejection';
  }
}

export const reject = (code: PaymentErrorCode, message: string, x402Reason?: string, details: Record<string, unknown> | null = null) =>
  new PaymentRejection(code, message, x402Reason ?? code, details);

/** A malformed PAYMENT-SIGNATURE: 400, as the x402 v2 HTTP transport specifies ("Invalid Payment"). */
export const malformed = (message: string, details: Record<string, unknown> | null = null) =>
  new PaymentRejection('payment_invalid_encoding', message, 'invalid_payload', details, 400);

export const unavailable = (code: PaymentErrorCode, message: string, details: Record<string, unknown> | null = null) =>
  new PaymentRejection(code, message, code, details, 503, { 'Retry-After': '5' });
