/** The payments feature's public surface: other features, jobs and the app import only this file. */
export { type BazaarExtension, bazaarHttp, bazaarMcp, compactBazaar, jsonSchemaOf } from './discovery.js';
export { PAYMENT_RESPONSE_DOC, SETTLEMENT_DOC, SETTLEMENT_PENDING_DOC } from './docs.js';
export { PaymentRejection } from './errors.js';
export { type Grant, Paywall } from './paywall.js';
export { beginSettlement, markFailed, markSettled, orphanedPayments, type PaymentRow, recordSettleError } from './queries.js';
export { ReplayGuard } from './replay.js';
export { formatUnits6, type Offer } from './requirements.js';
export { paymentRoutes } from './routes.js';
export { classifySettle, previousSettleError, settleOnce, transientNote } from './settle.js';
