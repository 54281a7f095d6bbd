/**
 * ping: the pipeline's own probe. It sleeps `sleep_ms` (bounded) and echoes `token`, so operators
 * and the queue round-trip benchmark can measure enqueue -> worker -> result without side effects,
 * and the crash-recovery test can kill a worker in the middle of a job.
 */
import { z } from 'zod';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({
  token: z.string().min(1).max(200),
  sleep_ms: z.number().int().min(0).max(60_000).default(0),
  /** Fail the first N attempts with a transient error (retry and backoff drills). */
  fail_first_attempts: z.number().int().min(0).max(10).default(0),
});

export const job = defineJob({
  name: 'ping',
  payload,
  options: { ...defaultJobOptions, attempts: 3, backoffMs: 200, concurrency: 50 },
  async run(p, deps, ctx) {
    if (ctx.attempt <= p.fail_first_attempts) throw new Error(`ping: simulated transient failure on attempt ${ctx.attempt}`);
    if (p.sleep_ms > 0) await new Promise((r) => setTimeout(r, p.sleep_ms));
    return { token: p.token, pid: process.pid, attempt: ctx.attempt, at: new Date().toISOString() };
  },
});
