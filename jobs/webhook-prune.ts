/**
 * webhook-prune: hourly retention of webhook deliveries. Deliveries are kept as long as the events
 * they carry (EVENT_LOG_RETENTION_DAYS): older ones are deleted in batches, each its own statement.
 */
import { z } from 'zod';
import { pruneDeliveries } from '../src/webhooks/index.js';
import { pruneOlderThan } from '../src/platform/prune.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({}).default({});

const BATCH = 5000;
const MAX_BATCHES = 200;

export const job = defineJob({
  name: 'webhook-prune',
  payload,
  options: { ...defaultJobOptions, attempts: 1, concurrency: 1 },
  async run(_p, deps) {
    return pruneOlderThan(deps.config.EVENT_LOG_RETENTION_DAYS, (cutoff, batch) => pruneDeliveries(deps.db, cutoff, batch), { batch: BATCH, pauseMs: 0, maxBatches: MAX_BATCHES });
  },
});
