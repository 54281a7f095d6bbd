/**
 * settle-payment: settle an x402 payment through the facilitator when the request path did not
 * (src/payments/settlement-service.ts says how), and mark or kill the sponsored post it bought.
 * Transient problems are retried with exponential backoff (6 attempts, 1 s doubling: all within the
 * authorization's validity); a payment that failed for good is a permanent failure.
 * Scheduled with {} it sweeps: x402 payments still `verified` after 60 s (their job was lost) are
 * enqueued again under the same deterministic job id.
 */
import { z } from 'zod';
import { settlePayment } from '../src/sponsored/index.js';
import { defaultJobOptions, defineJob } from './define.js';
import { PermanentJobError } from '../src/platform/errors/permanent-job-error.js';

const payload = z
  .object({
    payment_id: z
      .string()
      .regex(/^pay_[A-Za-z0-9_-]{22}$/)
      .optional(),
  })
  .default({});

const ATTEMPTS = 6;

export { classifySettle } from '../src/payments/index.js';

export const job = defineJob({
  name: 'settle-payment',
  payload,
  options: { ...defaultJobOptions, attempts: ATTEMPTS, backoffMs: 1000, concurrency: 8, jobId: (p) => (p.payment_id ? `settle-${p.payment_id}` : undefined) },
  async run(p, deps, ctx) {
    const result = await settlePayment(deps, { paymentId: p.payment_id, attempt: ctx.attempt, attempts: ATTEMPTS });
    if ('state' in result && result.state === 'failed') throw new PermanentJobError(result.message);
    return result;
  },
});
