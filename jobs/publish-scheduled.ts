/**
 * publish-scheduled: a delayed job that publishes a `scheduled` article at its time
 * (scheduled -> approved, event news.approved with previous_status "scheduled"). The transition, the
 * article's hot score (ranked at once, published_at as the age basis) and its event commit in one
 * transaction, so the job is idempotent for real: the guarded UPDATE only moves an article that is
 * still scheduled and due; a retry after a failure anywhere either finds the whole change committed
 * (and does nothing) or none of it (and does all of it): exactly one news.approved. The relay
 * publishes the event and retires the feed cache.
 */
import { z } from 'zod';
import { publishIfDue } from '../src/editor/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  article_id: z.number().int().positive(),
  /** The scheduled time (ms) the job was queued for: a re-schedule queues a new job, the old one finds the article not due. */
  publish_at: z.number().int().nonnegative().optional(),
});

export const job = defineJob({
  name: 'publish-scheduled',
  payload,
  options: { ...defaultJobOptions, jobId: (p) => `publish-scheduled-${p.article_id}-${p.publish_at ?? 'now'}` },
  async run(p, deps) {
    const published = await publishIfDue(deps.db, p.article_id);
    return { published };
  },
});
