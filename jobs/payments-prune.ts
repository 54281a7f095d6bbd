/**
 * payments-prune: daily retention of payment records. Settled or failed payments created more than
 * PAYMENT_RETENTION_DAYS ago (the accounting horizon, default 10 years) are deleted in batches of
 * RETENTION_BATCH; each leaves the sha256 of its replay key, so it can never be replayed. Payments
 * still verified or settling are never deleted.
 */
import { prunePayments } from '../src/ops/index.js';
import { retentionJob } from './retention-job.js';

export const job = retentionJob('payments-prune', (c) => c.PAYMENT_RETENTION_DAYS, prunePayments);
