import { createDb } from '../platform/db.js';
import { EventPublisher, eventStreamKey } from '../platform/events/events.js';
import { QueueClient } from '../platform/queue.js';
import { createRedis } from '../platform/redis.js';
import { RelayWaker } from '../relay/index.js';
import { startWorkers } from './worker-runtime.js';
import { webhookKeyWarning } from '../webhooks/index.js';
import { wakeRelay } from '../../jobs/relay-events.js';
import { boot, onShutdown } from './boot.js';
import { jobs } from '../../jobs/index.js';

const { config, log } = boot('worker');
const webhookWarning = webhookKeyWarning(config);
if (webhookWarning) log.warn(webhookWarning);
const db = createDb(config.DATABASE_URL, { max: config.DB_POOL_MAX, applicationName: 'worker', prepared: config.DB_PREPARED_STATEMENTS });
const redis = createRedis(config.REDIS_URL, 'command', 'worker', { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX, { readyTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
const events = new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), config.EVENT_STREAM_MAXLEN);

const workers = startWorkers(
  { config, db, redis, events, log, enqueue: queue.enqueuer },
  { redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, lockDurationMs: config.JOB_LOCK_MS, concurrencyCap: config.WORKER_CONCURRENCY },
);
log.info({ queues: workers.map((w) => w.name) }, 'workers started');
// Wakes relay-events when a committed event waits in the outbox (probed every RELAY_POLL_MS).
const waker = new RelayWaker({ databaseUrl: config.DATABASE_URL, log, wake: wakeRelay(queue.enqueuer) });

onShutdown(config, log, async () => {
  // worker.close() waits for running jobs to finish; jobs it cannot finish in time are recovered
  // as stalled by another worker once their lock expires.
  await waker.close();
  await Promise.all(workers.map((w) => w.close()));
  await queue.close();
  await redis.quit().catch(() => undefined);
  await db.destroy();
});
