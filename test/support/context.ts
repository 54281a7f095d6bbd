/**
 * Per-file isolation for integration tests: a fresh database cloned from the migrated template,
 * a random queue prefix (so queues and the event stream do not collide), real Redis and Postgres.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import type { AppDeps } from '../../src/platform/deps.js';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { createLogger } from '../../src/platform/logger.js';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis, type Redis } from '../../src/platform/redis.js';
import { jobs } from '../../jobs/index.js';
import { waitFor } from './wait.js';

export interface TestEnv {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  /** Environment variables for child processes (web, worker, ws, clock) pointed at this file's resources. */
  env: Record<string, string>;
  config: Config;
  cleanup(): Promise<void>;
}

export async function createTestEnv(overrides: Record<string, string> = {}): Promise<TestEnv> {
  const adminUrl = inject('pgAdminUrl');
  const template = inject('templateDb');
  const redisUrl = inject('redisUrl');
  const suffix = randomBytes(4).toString('hex');
  const dbName = `${template.replace('squid_tpl_', 'squid_t_')}_${suffix}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // CREATE DATABASE ... TEMPLATE needs the template to have no other sessions; retry briefly
  // while it reports 55006 object_in_use (the template still has a session).
  const created = async () => {
    try {
      await admin.query(`CREATE DATABASE ${dbName} TEMPLATE ${template}`);
      return { error: null };
    } catch (err) {
      return (err as { code?: string }).code === '55006' ? undefined : { error: err };
    }
  };
  const { error } = await waitFor(created, { timeout: 10_000, interval: 100 + Math.random() * 100, what: `the template ${template} to be free` });
  if (error) throw error;
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  const databaseUrl = u.toString();
  const prefix = `t${suffix}`;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    LOG_LEVEL: 'silent',
    OUTBOUND_ALLOW_PRIVATE: 'true',
    JOB_WAIT_MS: '3000',
    // Revocations and role changes made by a test take effect on its next request (production: within 200 ms).
    AUTH_CACHE_CHECK_MS: '0',
    // The suite runs many processes at once on few cores: at nice 19 a picture process would get
    // almost none of them (test/integration/picture-worker.test.ts covers the lowered priority).
    PICTURE_NICE: '0',
    ...overrides,
  };
  const config = loadConfig(env);
  return {
    databaseUrl,
    redisUrl,
    prefix,
    env,
    config,
    async cleanup() {
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
        const r = createRedis(redisUrl, 'command', 'cleanup');
        let cursor = '0';
        do {
          const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          if (keys.length) await r.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        r.disconnect();
      } finally {
        await admin.end();
      }
    },
  };
}

export interface TestDeps extends AppDeps {
  env: TestEnv;
  close(): Promise<void>;
}

/** AppDeps on this file's own database and queue prefix, plus close() that releases everything. */
export async function createTestDeps(overrides: Record<string, string> = {}): Promise<TestDeps> {
  const env = await createTestEnv(overrides);
  const config = env.config;
  const log = createLogger('test', config.LOG_LEVEL);
  const db: Db = createDb(config.DATABASE_URL, { max: 5 });
  const redis: Redis = createRedis(config.REDIS_URL, 'command', 'test', { autoPipelining: true, commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX, { readyTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
  const events = new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), config.EVENT_STREAM_MAXLEN);
  return {
    config,
    log,
    db,
    redis,
    queue,
    events,
    env,
    async close() {
      await queue.close();
      await db.destroy();
      redis.disconnect();
      await env.cleanup();
    },
  };
}
