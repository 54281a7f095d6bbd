/**
 * telegram-updates-prune: hourly retention of the Telegram update ids (the webhook's redelivery
 * guard), kept TELEGRAM_UPDATES_RETENTION_DAYS; batches of RETENTION_BATCH, one statement each.
 */
import { pruneTelegramUpdates } from '../src/ops/index.js';
import { retentionJob } from './retention-job.js';

export const job = retentionJob('telegram-updates-prune', (c) => c.TELEGRAM_UPDATES_RETENTION_DAYS, pruneTelegramUpdates);
