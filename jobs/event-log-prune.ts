/**
 * event-log-prune: hourly retention of the event log. Deletes relayed events older than
 * EVENT_LOG_RETENTION_DAYS in batches of PRUNE_BATCH, each in its own short transaction (so it never
 * holds locks on the log for long), and records the highest id deleted (GET /events/ answers 410
 * events_expired to a cursor below it). Events still waiting in the outbox are never deleted.
 */
import { pruneEvents } from '../src/platform/events/log.js';
import { pruneOlderThan } from '../src/platform/prune.js';
import { defineSweep } from './define.js';

export const PRUNE_BATCH = 5000;
/** One run stops after this many batches (the next hourly run continues). */
const MAX_BATCHES = 200;

export const job = defineSweep({
  name: 'event-log-prune',
  async run(deps) {
    return pruneOlderThan(deps.config.EVENT_LOG_RETENTION_DAYS, (cutoff, batch) => pruneEvents(deps.db, cutoff, batch), {
      batch: PRUNE_BATCH,
      pauseMs: 0,
      maxBatches: MAX_BATCHES,
    });
  },
});
