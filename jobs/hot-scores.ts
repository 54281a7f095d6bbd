/**
 * hot-scores: recompute stored hot scores (src/domain/hot-score.ts) in one set-based UPDATE.
 *  - Scheduled (jobs/schedules.ts): every approved or submitted article of the last
 *    HOT_SCORE_WINDOW_HOURS, so age decay keeps moving the feed.
 *  - Debounced: votes, yaps and clicks enqueue `{article_ids: [id]}` under debouncedHotScoreJob(),
 *    one job per article per HOT_SCORE_DEBOUNCE_MS window, delayed to the window's end, so a burst
 *    of votes costs one recompute and the last vote of a burst is always included.
 *  - `all: true` ignores the window (backfill after a formula change; the benchmark).
 * Idempotent: running it twice computes the same values (up to the passing of time).
 */
import { z } from 'zod';
import { recomputeAndRecord } from '../src/queries/hot-scores.js';
import { defaultJobOptions, defineJob } from './define.js';

export const payload = z
  .object({
    article_ids: z.array(z.number().int().positive()).min(1).max(1000).optional(),
    all: z.boolean().default(false),
  })
  .default({ all: false });

/** Job id and delay of the debounced recompute for an article (pure). */
export function debouncedHotScoreJob(articleId: number, nowMs: number, windowMs: number): { jobId: string; delayMs: number } {
  if (windowMs <= 0) return { jobId: `hot-scores-a${articleId}-t${nowMs}-${Math.random().toString(36).slice(2, 8)}`, delayMs: 0 };
  const bucket = Math.floor(nowMs / windowMs);
  return { jobId: `hot-scores-a${articleId}-w${bucket}`, delayMs: (bucket + 1) * windowMs - nowMs };
}

export const job = defineJob({
  name: 'hot-scores',
  payload,
  options: { ...defaultJobOptions, attempts: 3, backoffMs: 1000, concurrency: 2 },
  async run(p, deps) {
    const started = Date.now();
    const updated = await recomputeAndRecord(deps.db, { articleIds: p.article_ids, windowHours: deps.config.HOT_SCORE_WINDOW_HOURS, all: p.all });
    return { updated, ms: Date.now() - started };
  },
});
