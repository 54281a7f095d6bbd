/**
 * telegram-updates-prune: hourly retention of the Telegram update ids (the webhook's redelivery
 * guard), kept TELEGRAM_UPDATES_RETENTION_DAYS; batches of RETENTION_BATCH, one statement each.
 */
import { z } from 'zod';
import { pruneTelegramUpdates } from '../src/queries/retention.js';
import { pruneOlderThan } from '../src/retention/prune.js';
import { defaultJobOptions, defineJob } from './define.js';
import { MAX_BATCHES } from './wire-prune.js';

const payload = z.object({}).default({});

export const job = defineJob({
  name: 'telegram-updates-prune',
  payload,
  options: { ...defaultJobOptions, attempts: 1, concurrency: 1 },
  async run(_p, deps) {
    const c = deps.config;
    return pruneOlderThan(c.TELEGRAM_UPDATES_RETENTION_DAYS, (cutoff, batch) => pruneTelegramUpdates(deps.db, cutoff, batch), {
      batch: c.RETENTION_BATCH,
      pauseMs: c.RETENTION_PAUSE_MS,
      maxBatches: MAX_BATCHES,
    });
  },
});
