/**
 * The event relay as the worker process runs it (a BullMQ worker for relay-events, woken by the
 * waker's outbox probes), on a test file's own database and queue prefix; and a wait for the
 * relay to have caught up, for tests that read the Redis stream or the anonymous feed after a write.
 */
import type { Worker } from 'bullmq';
import { expect } from 'vitest';
import { wakeRelay } from '../../jobs/relay-events.js';
import type { AppDeps } from '../../src/platform/deps.js';
import { outboxDepth } from '../../src/platform/events/log.js';
import { RelayWaker } from '../../src/relay/waker.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';

export interface RunningRelay {
  waker: RelayWaker;
  workers: Worker[];
  close(): Promise<void>;
}

export async function startRelay(deps: AppDeps): Promise<RunningRelay> {
  const workers = startWorkers(
    { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer },
    { redisUrl: deps.config.REDIS_URL, prefix: deps.config.QUEUE_PREFIX, lockDurationMs: 5000, concurrencyCap: 2, only: ['relay-events'] },
  );
  const waker = new RelayWaker({ databaseUrl: deps.config.DATABASE_URL, log: deps.log, wake: wakeRelay(deps.queue.enqueuer) });
  await waker.ready;
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return {
    waker,
    workers,
    async close() {
      await waker.close();
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

/** Wait until every recorded event has been relayed (the outbox is empty). */
export async function relayed(deps: Pick<AppDeps, 'db'>, timeoutMs = 10_000): Promise<void> {
  await expect.poll(async () => (await outboxDepth(deps.db)).pending, { timeout: timeoutMs, interval: 20 }).toBe(0);
}
