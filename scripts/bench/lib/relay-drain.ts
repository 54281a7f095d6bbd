/**
 * One relay as its own process, for the relay-throughput figure: the worker's relay-events job body
 * (relayUntilEmpty from src/relay/relay.ts) with the worker's kind of dependencies (its own pool,
 * a plain command connection to Redis, EventPublisher, a QueueClient for follow-up jobs), started
 * on a signal so that several start together. Without BullMQ around it: what is measured is the
 * relay itself (claim with SKIP LOCKED, XADD pipeline, side effects, delete, commit).
 *
 * argv: <databaseUrl> <redisUrl> <queuePrefix> <streamMaxLen>
 * IPC: -> {type: 'ready'}; {cmd: 'go'} -> {type: 'done', relayed, passes, startedAt, finishedAt}; {cmd: 'close'}.
 */
import { sql } from 'kysely';
import { loadConfig } from '../../../src/platform/config.js';
import { createDb } from '../../../src/platform/db.js';
import { EventPublisher, eventStreamKey } from '../../../src/platform/events/events.js';
import { createLogger } from '../../../src/platform/logger.js';
import { QueueClient } from '../../../src/platform/queue.js';
import { createRedis } from '../../../src/platform/redis.js';
import { relayUntilEmpty } from '../../../src/relay/relay.js';
import { onMessage } from './child.js';
import { jobs } from '../../../jobs/index.js';

if (process.send) {
  const [databaseUrl, redisUrl, prefix, maxLen] = process.argv.slice(2);
  const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, JWT_SECRET: 'x'.repeat(32), LOG_LEVEL: 'warn' });
  const db = createDb(databaseUrl, { max: 2, applicationName: 'relay-bench' });
  const redis = createRedis(redisUrl, 'command', 'relay-bench');
  const queue = new QueueClient(jobs, redis, redisUrl, prefix);
  const deps = {
    config,
    db,
    redis,
    events: new EventPublisher(redis, eventStreamKey(prefix), Number(maxLen)),
    log: createLogger('relay-bench', 'warn'),
    enqueue: queue.enqueuer,
  };
  process.on('disconnect', () => process.exit(0));
  onMessage(async (msg: any) => {
    if (msg.cmd === 'go') {
      const startedAt = Date.now();
      const r = await relayUntilEmpty(deps, { budgetMs: 600_000 });
      process.send!({ type: 'done', relayed: r.relayed, passes: r.passes, startedAt, finishedAt: Date.now() });
    } else if (msg.cmd === 'close') {
      await queue.close();
      redis.disconnect();
      await db.destroy();
      process.exit(0);
    }
  });
  // Connections open and warm before the start signal.
  await sql`SELECT 1`.execute(db);
  await redis.ping();
  process.send({ type: 'ready' });
}
