/**
 * webhook-prune: hourly retention of webhook deliveries. Deliveries are kept as long as the events
 * they carry (EVENT_LOG_RETENTION_DAYS): older ones are deleted in batches, each its own statement.
 */
import { pruneDeliveries } from '../src/webhooks/index.js';
import { pruneOlderThan } from '../src/platform/prune.js';
import { defineSweep } from './define.js';

const BATCH = 5000;
const MAX_BATCHES = 200;

export const job = defineSweep({
  name: 'webhook-prune',
  async run(deps) {
    return pruneOlderThan(deps.config.EVENT_LOG_RETENTION_DAYS, (cutoff, batch) => pruneDeliveries(deps.db, cutoff, batch), { batch: BATCH, pauseMs: 0, maxBatches: MAX_BATCHES });
  },
});
