/**
 * payments-prune: daily retention of payment records. Settled or failed payments created more than
 * PAYMENT_RETENTION_DAYS ago (the accounting horizon, default 10 years) are deleted in batches of
 * RETENTION_BATCH; each leaves the sha256 of its replay key, so it can never be replayed. Payments
 * still verified or settling are never deleted.
 */
import { z } from 'zod';
import { prunePayments } from '../src/queries/retention.js';
import { pruneOlderThan } from '../src/retention/prune.js';
import { defaultJobOptions, defineJob } from './define.js';
import { MAX_BATCHES } from './wire-prune.js';

const payload = z.object({}).default({});

export const job = defineJob({
  name: 'payments-prune',
  payload,
  options: { ...defaultJobOptions, attempts: 1, concurrency: 1 },
  async run(_p, deps) {
    const c = deps.config;
    return pruneOlderThan(c.PAYMENT_RETENTION_DAYS, (cutoff, batch) => prunePayments(deps.db, cutoff, batch), {
      batch: c.RETENTION_BATCH,
      pauseMs: c.RETENTION_PAUSE_MS,
      maxBatches: MAX_BATCHES,
    });
  },
});
