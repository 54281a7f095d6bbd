/**
 * webhook-prune: hourly retention of webhook deliveries. Deliveries are kept as long as the events
 * they carry (EVENT_LOG_RETENTION_DAYS): older ones are deleted in batches, each its own statement.
 */
import { z } from 'zod';
import { pruneDeliveries } from '../src/queries/webhooks.js';
import { defaultJobOptions, defineJob } from './define.js';

export const payload = z.object({}).default({});

const BATCH = 5000;
const MAX_BATCHES = 200;

export const job = defineJob({
  name: 'webhook-prune',
  payload,
  options: { ...defaultJobOptions, attempts: 1, concurrency: 1 },
  async run(_p, deps) {
    const cutoff = new Date(Date.now() - deps.config.EVENT_LOG_RETENTION_DAYS * 86_400_000);
    let deleted = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await pruneDeliveries(deps.db, cutoff, BATCH);
      deleted += n;
      if (n < BATCH) break;
    }
    return { deleted, cutoff: cutoff.toISOString() };
  },
});
