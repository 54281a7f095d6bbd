/**
 * Helpers for the intel, payment and sponsored-post tests: seed articles (./articles.ts), API keys of a tier,
 * in-process workers, and a second set of AppDeps (own Redis and Postgres connections) on the same
 * database and queue prefix, standing in for a second web process.
 */
import { generateApiKey, generateKeyId, type Tier } from '../../src/identity/api-keys.js';
import type { Config } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import type { AppDeps } from '../../src/platform/deps.js';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { createLogger } from '../../src/platform/logger.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis } from '../../src/platform/redis.js';
import type { TestDeps } from './context.js';
import { jobs } from '../../jobs/index.js';

export async function apiKeyOfTier(db: AppDeps['db'], tier: Tier): Promise<Record<string, string>> {
  const key = generateApiKey();
  const id = generateKeyId();
  await insertApiKey(db, { id, hash: key.hash, first4: key.first4, last4: key.last4, name: `test ${tier}`, email: null, useCase: null, userId: null });
  await db.updateTable('api_keys').set({ tier }).where('id', '=', id).execute();
  return { authorization: `Bearer ${key.raw}` };
}

export { insertArticle } from './articles.js';
export { startTestWorkers } from './workers.js';

/** Another process's dependencies: same database and prefix, its own connections; config overrides allowed. */
export function siblingDeps(deps: TestDeps, overrides: Partial<Config> = {}): AppDeps & { close(): Promise<void> } {
  const config = { ...deps.config, ...overrides } as Config;
  const db = createDb(config.DATABASE_URL, { max: 5 });
  const redis = createRedis(config.REDIS_URL, 'command', 'sibling');
  const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX);
  const events = new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), config.EVENT_STREAM_MAXLEN);
  return {
    config,
    log: createLogger('test', 'silent'),
    db,
    redis,
    queue,
    events,
    async close() {
      await queue.close();
      await db.destroy();
      redis.disconnect();
    },
  };
}

export const hoursAgo = (h: number, now = Date.now()) => new Date(now - h * 3600_000);
