/**
 * "Start PostgreSQL and Redis unless a URL is given", once: for the test set-up, the benches and the
 * drills. Each server this starts is a `ManagedServer` on a fixed port and data directory, so a drill
 * can stop it and start it again where clients expect it.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { launcherEnv } from '../../src/platform/config.js';
import { freePort, startPostgres, startRedis, type Log, type RunningService } from './services.js';

/** A server started here: `stop()` and `start()` again on the same port and data (same `url`). */
export class ManagedServer implements RunningService {
  constructor(
    private running: RunningService,
    private readonly startAgain: () => Promise<RunningService>,
  ) {}

  get url(): string {
    return this.running.url;
  }

  get pid(): number {
    return this.running.pid;
  }

  stop(): Promise<void> {
    return this.running.stop();
  }

  async start(): Promise<void> {
    this.running = await this.startAgain();
  }
}

interface BackingOptions {
  log: Log;
  /** PostgreSQL to use instead of starting one; unset: DATABASE_URL (with `fromEnv`), else started. */
  databaseUrl?: string;
  /** Redis to use instead of starting one; unset: REDIS_URL (with `fromEnv`), else started. */
  redisUrl?: string;
  /** Take DATABASE_URL / REDIS_URL from the environment when no URL is given (default true). */
  fromEnv?: boolean;
  /** false: no PostgreSQL at all (a Redis-only bench); `adminUrl` is then ''. Default true. */
  postgres?: boolean;
  /** Database a started PostgreSQL creates (default `postgres`). */
  database?: string;
  /** Settings for a started PostgreSQL (ALTER SYSTEM, then a restart), e.g. track_commit_timestamp. */
  pgSettings?: Record<string, string>;
  /** A started Redis with AOF, so a restart keeps its data (default false). */
  redisPersistent?: boolean;
  /**
   * A PostgreSQL data directory to start from (copied with `cp -a`, which keeps the postgres user's
   * ownership and the 0700 mode), instead of initdb: the test set-up's cached, migrated template.
   */
  pgDataFrom?: string;
}

interface BackingServices {
  /** PostgreSQL URL (the given one, or the started server's). */
  adminUrl: string;
  redisUrl: string;
  /** The servers started here; null where a URL was used. */
  postgres: ManagedServer | null;
  redis: ManagedServer | null;
}

/**
 * PostgreSQL and Redis: the given (or environment's) URLs, otherwise throwaway servers on free
 * ports with data under `dir` (pg/, redis/), never durable (fsync off). Each server started is
 * also pushed onto `started`, which the caller stops at the end (newest first).
 */
export async function backingServices(dir: string, started: RunningService[], opts: BackingOptions): Promise<BackingServices> {
  const env: { DATABASE_URL?: string; REDIS_URL?: string } = opts.fromEnv === false ? {} : launcherEnv();
  const log = opts.log;
  let postgres: ManagedServer | null = null;
  let adminUrl = opts.databaseUrl ?? env.DATABASE_URL ?? '';
  if (!adminUrl && opts.postgres !== false) {
    const pgOpts = { port: await freePort(), dir: path.join(dir, 'pg'), log, database: opts.database ?? 'postgres', durable: false };
    if (opts.pgDataFrom) copyDataDir(opts.pgDataFrom, pgOpts.dir);
    let first = await startPostgres(pgOpts);
    const settings = Object.entries(opts.pgSettings ?? {});
    if (settings.length > 0) {
      const c = new pg.Client({ connectionString: first.url });
      await c.connect();
      try {
        for (const [name, value] of settings) {
          if (!/^[a-z_.]+$/.test(name)) throw new Error(`not a PostgreSQL setting name: ${name}`);
          await c.query(`ALTER SYSTEM SET ${name} = ${pgLiteral(value)}`);
        }
      } finally {
        await c.end();
      }
      await first.stop();
      first = await startPostgres(pgOpts);
    }
    postgres = new ManagedServer(first, () => startPostgres(pgOpts));
    started.push(postgres);
    adminUrl = postgres.url;
  }
  let redis: ManagedServer | null = null;
  let redisUrl = opts.redisUrl ?? env.REDIS_URL ?? '';
  if (!redisUrl) {
    const redisOpts = { port: await freePort(), dir: path.join(dir, 'redis'), persistent: opts.redisPersistent ?? false, log };
    redis = new ManagedServer(await startRedis(redisOpts), () => startRedis(redisOpts));
    started.push(redis);
    redisUrl = redis.url;
  }
  return { adminUrl, redisUrl, postgres, redis };
}

/** `cp -a` of a PostgreSQL data directory: keeps the postgres user's ownership and the 0700 mode PostgreSQL insists on. */
export function copyDataDir(from: string, to: string): void {
  execFileSync('cp', ['-a', from, to]);
}

function pgLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
