/**
 * monthly-distribution: the clock runs it at 00:05 UTC on the 1st of every month to close the previous
 * month (freeze its leaderboard, split the pool exactly, build the Merkle tree, store drops and
 * proofs). Without a month it closes the month before the current UTC month. Idempotent: the work is
 * one transaction under the month's advisory lock and a month with a distribution is left unchanged,
 * so a retry, a second clock or a hand run (`npm run cli -- rewards:distribute`) changes nothing.
 */
import { z } from 'zod';
import { addMonths, MONTH_PATTERN, monthOf } from '../src/rewards/index.js';
import { distributeMonth } from '../src/rewards/index.js';
import { defaultJobOptions, defineJob } from './define.js';
import { PermanentJobError } from '../src/platform/errors/permanent-job-error.js';

const payload = z.object({ month: z.string().regex(MONTH_PATTERN).optional() }).default({});

export const job = defineJob({
  name: 'monthly-distribution',
  payload,
  options: { ...defaultJobOptions, attempts: 5, backoffMs: 30_000, concurrency: 1 },
  async run(p, deps) {
    const month = p.month ?? addMonths(monthOf(new Date()), -1);
    const summary = await distributeMonth(deps.db, month, new Date(), { leaseS: deps.config.CREDIBILITY_RUN_LEASE_S });
    if (summary.status === 'month_not_over') throw new PermanentJobError(`month ${month} is not over yet`);
    deps.log.info({ job: 'monthly-distribution', month, status: summary.status, root: summary.merkle_root, recipients: summary.recipients }, 'monthly distribution');
    return { month, status: summary.status, merkle_root: summary.merkle_root, recipients: summary.recipients, total_distributed: summary.total_distributed };
  },
});
