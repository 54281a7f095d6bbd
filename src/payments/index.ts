/** The payments feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { type BazaarExtension, bazaarHttp, bazaarMcp, compactBazaar, jsonSchemaOf } from './discovery.js';
export { PAYMENT_RESPONSE_DOC, SETTLEMENT_DOC, SETTLEMENT_PENDING_DOC } from './docs.js';
export { PaymentRejection } from './errors.js';
export { Paywall } from './paywall.js';
export { formatUnits6, type Offer } from './requirements.js';
export { type AuthorizeOptions, type Grant, type PaymentRequest, PaymentService } from './service.js';
export { classifySettle } from './settle.js';
export { settleRecordedPayment, type SettlementDeps, type SettlementResult, sweepOrphanedPayments } from './settlement-service.js';
