/**
 * story-assign: assign one article or wire item to a story (src/stories/service.ts). Enqueued when
 * an article is created (submission, wire promotion; sponsored posts are not assigned), when its
 * page title lands or an editor edits its headline, and when a wire item is ingested. Enqueued
 * with a per-item deduplication id, so a burst of changes to one item runs as one job plus at most
 * one follow-up. A retry after a crash assigns the item exactly once (the service's transaction).
 * Jobs running together in one process are assigned in one transaction, in the order they reached
 * the process (src/stories/assign-batcher.ts): a high concurrency only lets them join the next batch,
 * since assignments are serialised anyway (one transaction at a time).
 * A wire item that makes its story corroborated (WIRE_PROMOTE_MIN_SOURCES independent sources)
 * promotes the story once, in the same transaction (src/stories/corroboration.ts).
 */
import { z } from 'zod';
import { assignStoryItemBatched } from '../src/stories/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  kind: z.enum(['article', 'wire']),
  id: z.number().int().positive(),
});

/**
 * Jobs held at once: they wait in the batcher rather than work, and three batches' worth keeps the
 * worker fetching the next batch's jobs while one batch's transaction runs.
 */
const ASSIGN_CONCURRENCY = 600;

export const job = defineJob({
  name: 'story-assign',
  payload,
  options: { ...defaultJobOptions, attempts: 8, backoffMs: 500, concurrency: ASSIGN_CONCURRENCY, concurrencyFromConfig: () => ASSIGN_CONCURRENCY },
  async run(p, deps) {
    return assignStoryItemBatched(deps.db, p, { promoteMinSources: deps.config.WIRE_PROMOTE_MIN_SOURCES });
  },
});
