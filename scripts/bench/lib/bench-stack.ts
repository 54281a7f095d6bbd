/**
 * A throwaway Postgres + Redis (or DATABASE_URL / REDIS_URL's servers) with a fresh, migrated
 * database, and the app's dependencies on it: shared by bench:media and bench:retention.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../../src/config.js';
import { createDb, type Db } from '../../../src/db.js';
import type { AppDeps } from '../../../src/deps.js';
import { EventPublisher, eventStreamKey } from '../../../src/events.js';
import { createLogger } from '../../../src/logger.js';
import { migrateToLatest } from '../../../src/migrate.js';
import { QueueClient } from '../../../src/queue.js';
import { createRedis } from '../../../src/redis.js';
import { backingServices } from '../../lib/backing-services.js';
import type { RunningService } from '../../lib/services.js';

export interface BenchStack {
  deps: AppDeps;
  db: Db;
  config: Config;
  tmp: string;
  close(): Promise<void>;
}

/** The benches' log line on stderr. */
export const benchLog = (l: string) => console.error(`[bench] ${l}`);

export async function benchStack(name: string, overrides: Record<string, string> = {}, opts: { sharedBuffers?: string } = {}): Promise<BenchStack> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `squid-bench-${name}-`));
  const started: RunningService[] = [];
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log: benchLog, pgSettings: opts.sharedBuffers ? { shared_buffers: opts.sharedBuffers } : undefined });
  const dbName = `squid_bench_${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  const config = loadConfig({
    DATABASE_URL: u.toString(),
    REDIS_URL: redisUrl,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    QUEUE_PREFIX: `bench${name}${process.pid}`,
    LOG_LEVEL: 'warn',
    ANON_DAILY_QUOTA: '1000000000',
    SESSION_DAILY_QUOTA: '1000000000',
    NODE_ENV: 'production',
    PROFILE_PICTURES_DIR: path.join(tmp, 'pictures'),
    ...overrides,
  });
  const db = createDb(config.DATABASE_URL, { max: config.DB_POOL_MAX });
  await migrateToLatest(db);
  const redis = createRedis(config.REDIS_URL, 'command', 'bench', { autoPipelining: true });
  const deps: AppDeps = {
    config,
    log: createLogger('bench', config.LOG_LEVEL),
    db,
    redis,
    queue: new QueueClient(redis, config.REDIS_URL, config.QUEUE_PREFIX),
    events: new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), 1000),
  };
  return {
    deps,
    db,
    config,
    tmp,
    async close() {
      await deps.queue.close();
      redis.disconnect();
      await db.destroy();
      await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
      for (const s of started.reverse()) await s.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
