/**
 * publish-scheduled: a delayed job that publishes a `scheduled` article at its time
 * (scheduled -> approved, event news.approved with previous_status "scheduled"). Idempotent: the
 * guarded UPDATE only moves an article that is still scheduled and due, so a retry or a second
 * run changes nothing and publishes nothing. Like the editorial approve, the article is ranked at
 * once (its hot score computed with published_at as the age basis) and the feed cache is retired,
 * so anonymous readers see it without waiting for the cache TTL.
 */
import { sql } from 'kysely';
import { z } from 'zod';
import { articleEvent } from '../src/domain/article-event.js';
import { invalidateFeedCache } from '../src/queries/feed-cache.js';
import { recomputeHotScores } from '../src/queries/hot-scores.js';
import { defaultJobOptions, defineJob } from './define.js';

export const payload = z.object({ article_id: z.number().int().positive() });

export const job = defineJob({
  name: 'publish-scheduled',
  payload,
  options: { ...defaultJobOptions, jobId: (p: { article_id: number }) => `publish-scheduled-${p.article_id}` },
  async run(p, deps) {
    const row = await deps.db
      .updateTable('articles')
      .set({ status: 'approved', published_at: sql`now()`, updated_at: sql`now()`, scheduled_for: null })
      .where('id', '=', p.article_id)
      .where('status', '=', 'scheduled')
      .where('scheduled_for', '<=', sql<Date>`now() + interval '1 second'`)
      .returning(['id', 'slug', 'status', 'headline', 'origin', 'created_at', 'published_at', 'sponsored'])
      .executeTakeFirst();
    if (!row) return { published: false };
    await recomputeHotScores(deps.db, { articleIds: [row.id], windowHours: 1, all: true });
    await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
    await deps.events.publish(articleEvent('news.approved', row, 'scheduled'));
    return { published: true };
  },
});
