/**
 * BullMQ workers of the given jobs in the test process, on the test's dependencies (its database,
 * Redis and queue prefix), as src/bin/worker.ts starts them in the worker process. Close them in
 * afterAll (`Promise.all(workers.map((w) => w.close()))`).
 */
import type { Worker } from 'bullmq';
import type { JobName } from '../../jobs/index.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import type { AppDeps } from '../../src/platform/deps.js';

export function startTestWorkers(deps: AppDeps, only?: JobName[], opts: { lockDurationMs?: number; concurrencyCap?: number } = {}): Worker[] {
  return startWorkers(
    { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer },
    { redisUrl: deps.config.REDIS_URL, prefix: deps.config.QUEUE_PREFIX, lockDurationMs: opts.lockDurationMs ?? 5000, concurrencyCap: opts.concurrencyCap ?? 8, only },
  );
}
