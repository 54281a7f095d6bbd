/**
 * provenance-headlines-maintain (hourly, jobs/schedules.ts): upkeep of the provenance headline index.
 *
 *  - Deletes rows (provenance_headlines) of articles older than the 30-day provenance window plus a
 *    day of margin. The text check filters on created_at anyway; pruning keeps the trigram index
 *    the size of the window, so the check does not slow down as the archive grows.
 *  - Recomputes provenance_common_words (candidate-key words in >= 1% of the window's headlines),
 *    which the check uses to find a query's distinctive words (src/provenance/queries.ts).
 *
 * Idempotent (a DELETE by age and a full recompute). Wire items are not pruned: the wire
 * de-duplicates by normalised URL against wire_items, so a pruned item still listed by its feed
 * would be ingested (and announced) again, and an item's newer receipts from other sources would
 * go with it.
 */
import { z } from 'zod';
import { maintainHeadlineIndex } from '../src/provenance/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({}).default({});

export const job = defineJob({
  name: 'provenance-headlines-maintain',
  payload,
  options: { ...defaultJobOptions, concurrency: 1 },
  async run(_p, deps) {
    const { deleted, commonWords } = await maintainHeadlineIndex(deps.db, Date.now());
    deps.log.info({ job: 'provenance-headlines-maintain', deleted, commonWords }, 'provenance headline index maintained');
    return { deleted, commonWords };
  },
});
