import { upsertSchedules } from './schedules.js';
import { QueueClient } from '../platform/queue.js';
import { createRedis } from '../platform/redis.js';
import { boot, onShutdown } from './boot.js';
import { jobs } from '../../jobs/index.js';

// The clock does no work itself: it upserts BullMQ job schedulers, then idles so that a
// Heroku-style platform does not restart it in a loop. Re-upserting hourly heals a flushed Redis.
const { config, log } = boot('clock');
const redis = createRedis(config.REDIS_URL, 'command', 'clock', { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX, { readyTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });

async function sync() {
  try {
    const r = await upsertSchedules(queue);
    log.info(r, 'job schedulers upserted');
  } catch (err) {
    log.error({ err: (err as Error).message }, 'upserting job schedulers failed; retrying in 10 s');
    setTimeout(() => void sync(), 10_000).unref();
  }
}
const timer = setInterval(() => void sync(), 3600_000);

// Handlers first: a SIGTERM that arrives while the first upsert is in flight must still end in a
// clean exit, not in the default action of the signal.
onShutdown(config, log, async () => {
  clearInterval(timer);
  await queue.close();
  await redis.quit().catch(() => undefined);
});
await sync();
