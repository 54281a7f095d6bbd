/**
 * A throwaway Postgres + Redis (or DATABASE_URL / REDIS_URL's servers) with a fresh, migrated
 * database, and the app's dependencies on it (benchStack: bench:media, bench:retention, bench:x402); the
 * pieces (backingServices, createBenchDatabase, benchDeps) for the benches that set their stack up themselves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import pg from 'pg';
import { loadConfig, type Config } from '../../../src/platform/config.js';
import { createDb, type Db } from '../../../src/platform/db.js';
import type { AppDeps } from '../../../src/platform/deps.js';
import { errorMiddleware } from '../../../src/platform/errors/index.js';
import { EventPublisher, eventStreamKey } from '../../../src/platform/events/events.js';
import { koaListener } from '../../../src/platform/http/listener.js';
import { createLogger, type Logger } from '../../../src/platform/logger.js';
import { migrateToLatest } from '../../../src/platform/migrate.js';
import { QueueClient } from '../../../src/platform/queue.js';
import { createRedis, type Redis } from '../../../src/platform/redis.js';
import { backingServices } from '../../lib/backing-services.js';
import type { RunningService } from '../../lib/services.js';
import { jobs } from '../../../jobs/index.js';

export interface BenchStack {
  deps: AppDeps;
  db: Db;
  config: Config;
  tmp: string;
  close(): Promise<void>;
}

/** The benches' log line on stderr. */
export const benchLog = (l: string) => console.error(`[bench] ${l}`);

/**
 * Creates the database `name` on the server `adminUrl` names. Returns the admin connection (kept open
 * so the bench can drop the database at the end) and the new database's URL.
 */
export async function createBenchDatabase(adminUrl: string, name: string): Promise<{ admin: pg.Client; url: string }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { admin, url: u.toString() };
}

/** createBenchDatabase, migrated to the latest schema (for benches that start the service's processes on it). */
export async function createMigratedBenchDatabase(adminUrl: string, name: string): Promise<{ admin: pg.Client; url: string }> {
  const created = await createBenchDatabase(adminUrl, name);
  const db = createDb(created.url, { max: 1 });
  await migrateToLatest(db);
  await db.destroy();
  return created;
}

/** Whether `url` answers 2xx within a second. */
export async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/** The app's dependencies as src/bin/web.ts builds them, over the bench's own database and Redis connections. */
export function benchDeps(config: Config, db: Db, redis: Redis, logLevel: string): AppDeps {
  return {
    config,
    log: createLogger('bench', logLevel),
    db,
    redis,
    queue: new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX),
    events: new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), 1000),
  };
}

/**
 * Serves `app` on 127.0.0.1 at a free port; resolves with its origin (http://127.0.0.1:port) and the
 * server. `keepAliveTimeoutMs` outlasts the load generator's idle gaps (Node's default is 5 s).
 */
export function listenLocal(app: Koa, opts: { keepAliveTimeoutMs?: number } = {}): Promise<{ origin: string; server: http.Server }> {
  return new Promise((resolve) => {
    const server = http.createServer(koaListener(app)).listen(0, '127.0.0.1', () => resolve({ origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }));
    if (opts.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  });
}

/** The baseline of the route benches: Koa, the error middleware and one trivial route, GET /api/v1/bench/ping. */
export function bareApp(log: Logger): Koa {
  const bare = new Koa();
  bare.use(errorMiddleware(log));
  const router = new Router({ prefix: '/api/v1' });
  router.get('/bench/ping', (ctx) => {
    ctx.body = { ok: true };
  });
  bare.use(router.routes());
  return bare;
}

export async function benchStack(name: string, overrides: Record<string, string> = {}, opts: { sharedBuffers?: string } = {}): Promise<BenchStack> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `squid-bench-${name}-`));
  const started: RunningService[] = [];
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log: benchLog, pgSettings: opts.sharedBuffers ? { shared_buffers: opts.sharedBuffers } : undefined });
  const dbName = `squid_bench_${name}_${process.pid}`;
  const { admin, url } = await createBenchDatabase(adminUrl, dbName);
  const config = loadConfig({
    DATABASE_URL: url,
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
  const db = createDb(config.DATABASE_URL, { max: config.DB_POOL_MAX, prepared: config.DB_PREPARED_STATEMENTS });
  await migrateToLatest(db);
  const redis = createRedis(config.REDIS_URL, 'command', 'bench', { autoPipelining: true });
  const deps = benchDeps(config, db, redis, config.LOG_LEVEL);
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

/** Closes the bench's connections (queue client, Redis, pool) and drops its database. */
export async function closeBenchDatabase(deps: AppDeps, admin: pg.Client, name: string): Promise<void> {
  await deps.queue.close();
  deps.redis.disconnect();
  await deps.db.destroy();
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.end();
}

/** Stops what backingServices started, last first, and removes their directory. */
export async function stopBackingServices(started: RunningService[], tmp: string): Promise<void> {
  for (const s of started.reverse()) await s.stop();
  rmSync(tmp, { recursive: true, force: true });
}

/**
 * Runs a bench's body on its stack and ends the process: the stack is closed whatever happens, and
 * a failure is reported with exit code 1.
 */
export async function runOnStack(stack: BenchStack, body: (stack: BenchStack) => Promise<void>): Promise<never> {
  try {
    await body(stack);
  } catch (err) {
    console.error('[bench] failed:', err);
    process.exitCode = 1;
  } finally {
    await stack.close();
  }
  process.exit(process.exitCode ?? 0);
}
