/** Shared wording of the settlement semantics for the OpenAPI descriptions (README says the same). */

export const SETTLEMENT_DOC = [
  'X402_SETTLEMENT_MODE=sync (default): the server verifies the payment, settles it through the facilitator (POST /settle) and only then answers with the resource and header PAYMENT-RESPONSE: base64 JSON {success: true, transaction: <settlement transaction hash>, network, payer, extra: {payment_id, state: "settled", status_url}}.',
  'A refused settlement is 402 payment_settlement_failed with PAYMENT-RESPONSE {success: false, errorReason, transaction: "", network, payer} and a fresh PAYMENT-REQUIRED; nothing is delivered. A facilitator that fails (5xx, unreachable) is 503 payment_settlement_unavailable (nothing charged; retry with the same signature); one that does not answer within X402_FACILITATOR_TIMEOUT_MS is 503 payment_settlement_pending with details.status_url (the outcome is unknown; the settle-payment job resolves it).',
  'X402_SETTLEMENT_MODE=deferred: the resource is served after local verification and settled afterwards by the settle-payment job; PAYMENT-RESPONSE is then {success: false, errorReason: "settlement_pending", transaction: "", network, payer, extra: {payment_id, state: "verified", settlement: "deferred", status_url}}: GET status_url (GET /api/v1/payments/{payment_id}/) shows state settled with the transaction hash, or failed with the error.',
].join(' ');

export const PAYMENT_RESPONSE_DOC =
  'x402 payments: base64 JSON SettlementResponse. sync mode: {success: true, transaction, network, payer, extra: {payment_id, state: "settled", status_url}}; deferred mode: {success: false, errorReason: "settlement_pending", transaction: "", network, payer, extra: {payment_id, state: "verified", settlement: "deferred", status_url}}; mainnet transfer: {success: true, transaction: <its hash>, network: "eip155:1", payer}.';
