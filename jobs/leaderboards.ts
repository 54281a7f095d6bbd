/**
 * leaderboards: recomputes the leaderboard snapshots that GET /api/v1/leaderboards/ and the earnings
 * endpoint serve (every 5 minutes from the clock). Without a month it recomputes the current UTC month
 * and the previous one (until the monthly distribution freezes it: votes and reviews of its last
 * minutes may land after midnight), and backfills every month since the first recorded activity that
 * has no snapshot yet, so each past month has one. Older snapshots stay as they are (activity is
 * attributed to the month it happened in, so they do not change); `month` forces a recompute.
 * Frozen months are never touched. Each month is its own transaction
 * under the month's advisory lock, so concurrent runs (and the distribution) serialise per month.
 */
import { z } from 'zod';
import { MONTH_PATTERN, runLeaderboards } from '../src/rewards/index.js';
import { defaultJobOptions, defineJob } from './define.js';

export { monthsToCompute, runLeaderboards } from '../src/rewards/index.js';

const payload = z
  .object({
    /** Recompute only this month (YYYY-MM); ignored when the month is frozen. */
    month: z.string().regex(MONTH_PATTERN).optional(),
  })
  .default({});

export const job = defineJob({
  name: 'leaderboards',
  payload,
  options: { ...defaultJobOptions, attempts: 3, backoffMs: 5000, concurrency: 1 },
  async run(p, deps) {
    const results = await runLeaderboards(deps.db, p);
    const summary = results.map((r) => ({ month: r.month, computed: r.computed, entries: r.entries, ms: r.ms }));
    deps.log.info({ job: 'leaderboards', months: summary }, 'leaderboards computed');
    return { months: summary };
  },
});
