/**
 * hot-scores: recompute stored hot scores (src/articles/rules/hot-score.ts) in one set-based UPDATE.
 *  - Scheduled (jobs/schedules.ts): every approved or submitted article of the last
 *    HOT_SCORE_WINDOW_HOURS, so age decay keeps moving the feed.
 *  - Debounced: votes, yaps and clicks enqueue `{article_ids: [id]}` under debouncedHotScoreJob(),
 *    one job per article per HOT_SCORE_DEBOUNCE_MS window, delayed to the window's end, so a burst
 *    of votes costs one recompute and the last vote of a burst is always included.
 *  - `all: true` ignores the window (backfill after a formula change; the benchmark).
 * Idempotent: running it twice computes the same values (up to the passing of time).
 */
import { z } from 'zod';
import { recomputeAndRecord } from '../src/articles/index.js';
import { defaultJobOptions, defineJob } from './define.js';

export const payload = z
  .object({
    article_ids: z.array(z.number().int().positive()).min(1).max(1000).optional(),
    all: z.boolean().default(false),
    /** Debounce window number of a one-article recompute: one job per article and window. */
    window: z.number().int().nonnegative().optional(),
  })
  .default({ all: false });

/** The job's id scheme: a debounced recompute is one job per article and window; others are numbered by BullMQ. */
export function hotScoresJobId(p: z.output<typeof payload>): string | undefined {
  return p.window !== undefined && p.article_ids?.length === 1 ? `hot-scores-a${p.article_ids[0]}-w${p.window}` : undefined;
}

export const job = defineJob({
  name: 'hot-scores',
  payload,
  options: { ...defaultJobOptions, attempts: 3, backoffMs: 1000, concurrency: 2, jobId: hotScoresJobId },
  async run(p, deps) {
    const started = Date.now();
    const updated = await recomputeAndRecord(deps.db, { articleIds: p.article_ids, windowHours: deps.config.HOT_SCORE_WINDOW_HOURS, all: p.all });
    return { updated, ms: Date.now() - started };
  },
});
