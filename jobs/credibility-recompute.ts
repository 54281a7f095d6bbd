/**
 * credibility-recompute: the full recompute of credibility weights and flags (nightly from the clock,
 * at 00:01 UTC also closing the month that just ended). Without a month it recomputes the current
 * UTC month and the previous one, then recomputes their leaderboard snapshots so the boards and the
 * earnings estimate use the new weights. Resumable: a run killed midway is taken over by the next
 * attempt (src/credibility/service.ts).
 */
import { z } from 'zod';
import { recomputeMonth } from '../src/credibility/index.js';
import { addMonths, MONTH_PATTERN, monthOf, runLeaderboards } from '../src/rewards/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({ month: z.string().regex(MONTH_PATTERN).optional() }).default({});

export const job = defineJob({
  name: 'credibility-recompute',
  payload,
  options: { ...defaultJobOptions, attempts: 5, backoffMs: 30_000, concurrency: 1 },
  async run(p, deps) {
    const current = monthOf(new Date());
    const months = p.month ? [p.month] : [addMonths(current, -1), current];
    const results = [];
    for (const m of months) {
      // A run left by a killed attempt is taken over once its lease runs out (waiting for it here, not in a backoff).
      const leaseS = deps.config.CREDIBILITY_RUN_LEASE_S;
      const r = await recomputeMonth(deps.db, m, { leaseS, waitMs: (leaseS + 5) * 1000 });
      if (r.status === 'busy') throw new Error(`credibility recompute of ${m} is held by another runner`);
      await runLeaderboards(deps.db, { month: m });
      results.push({ month: m, weights: r.weights, flags: r.flags, resumed: r.resumed, ms: r.ms });
    }
    deps.log.info({ job: 'credibility-recompute', months: results }, 'credibility recomputed');
    return { months: results };
  },
});
