/**
 * A whole deployment on loopback for fault drills and load runs: its own PostgreSQL and Redis
 * (started here, so they can be stopped and restarted without touching anyone else's), migrated,
 * and the Procfile's process types as real OS processes that can be signalled one by one.
 * Or, for drills that do not restart the backing services, existing DATABASE_URL/REDIS_URL.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '../../../src/platform/db.js';
import { migrateToLatest } from '../../../src/platform/migrate.js';
import { createRedis, type Redis } from '../../../src/platform/redis.js';
import { readProcfile } from '../../lib/procfile.js';
import { startProc, waitForHttp, type Proc as HarnessProc } from '../../lib/harness.js';
import { backingServices, type ManagedServer } from '../../lib/backing-services.js';
import { freePort } from '../../lib/services.js';

type ProcType = 'web' | 'worker' | 'ws' | 'clock';

/** A harness process with its Procfile type, as drills address it. */
interface Proc extends HarnessProc {
  type: ProcType;
  running(): boolean;
  /** Resolves when the output matches; rejects when the process exits first or time runs out. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<void>;
}

export interface StackOptions {
  /** Use these instead of starting PostgreSQL / Redis (restarts then impossible). */
  databaseUrl?: string;
  redisUrl?: string;
  /** Redis with AOF so a restart keeps its data, as a production Redis would. */
  redisPersistent?: boolean;
  prefix?: string;
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export const JWT_SECRET = 'drill-secret-drill-secret-drill-secret-0123456789';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Stack {
  readonly procs: Proc[] = [];
  private pgSvc: ManagedServer | null = null;
  private redisSvc: ManagedServer | null = null;
  private constructor(
    readonly dir: string,
    readonly env: Record<string, string>,
    readonly db: Db,
    readonly redis: Redis,
    private readonly opts: StackOptions,
    readonly ports: { web: number; ws: number },
  ) {}

  get log() {
    return this.opts.log ?? ((l: string) => process.stderr.write(`[drill] ${l}\n`));
  }

  static async start(opts: StackOptions = {}): Promise<Stack> {
    const log = opts.log ?? ((l: string) => process.stderr.write(`[drill] ${l}\n`));
    const dir = mkdtempSync(path.join(os.tmpdir(), 'squid-drill-'));
    // Not DATABASE_URL / REDIS_URL: a drill that restarts a server must own it.
    const backing = await backingServices(dir, [], {
      log,
      databaseUrl: opts.databaseUrl,
      redisUrl: opts.redisUrl,
      fromEnv: false,
      database: 'squid_drill',
      redisPersistent: opts.redisPersistent ?? true,
    });
    const databaseUrl = backing.adminUrl;
    const redisUrl = backing.redisUrl;
    const migrateDb = createDb(databaseUrl, { max: 1 });
    await migrateToLatest(migrateDb);
    await migrateDb.destroy();
    const ports = { web: await freePort(), ws: await freePort() };
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: opts.prefix ?? `drill${process.pid}`,
      JWT_SECRET,
      PORT: String(ports.web),
      WS_PORT: String(ports.ws),
      TRUSTED_ORIGIN: `http://127.0.0.1:${ports.web}`,
      PUBLIC_BASE_URL: `http://127.0.0.1:${ports.web}`,
      LOG_LEVEL: 'warn',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      EXIT_WITH_PARENT: 'true',
      DATA_DIR: path.join(dir, 'data'),
      ANON_DAILY_QUOTA: '100000000',
      SESSION_DAILY_QUOTA: '100000000',
      WS_MAX_PER_IP: '100000',
      ...opts.env,
    };
    const stack = new Stack(dir, env, createDb(databaseUrl, { max: 4 }), createRedis(redisUrl, 'command', 'drill'), opts, ports);
    stack.pgSvc = backing.postgres;
    stack.redisSvc = backing.redis;
    return stack;
  }

  get webUrl() {
    return `http://127.0.0.1:${this.ports.web}`;
  }
  get wsUrl() {
    return `ws://127.0.0.1:${this.ports.ws}/ws/news/`;
  }
  get prefix() {
    return this.env.QUEUE_PREFIX;
  }

  /** Start one process of a Procfile type; resolves when it is ready (listening, or workers started). */
  async spawn(type: ProcType, extraEnv: Record<string, string> = {}, readyTimeoutMs = 120_000): Promise<Proc> {
    const entry = readProcfile().find((t) => t.name === type)!.entry;
    // Readiness of worker and clock is read from their info-level log lines; web logs every
    // request at info, so it stays at the stack's level.
    const env: Record<string, string> = { ...this.env, ...(type === 'web' ? {} : { LOG_LEVEL: 'info' }), ...extraEnv };
    const name = `${type}#${this.procs.filter((p) => p.type === type).length + 1}`;
    const base = startProc(name, entry, env, [], { prebuilt: true });
    const proc: Proc = {
      ...base,
      type,
      running: base.isRunning,
      waitFor: async (re, timeoutMs = 60_000) => {
        await base.waitForOutput(re, timeoutMs);
      },
    };
    this.procs.push(proc);
    if (type === 'web' || type === 'ws') {
      const port = type === 'web' ? Number(env.PORT) : Number(env.WS_PORT);
      await waitForHttp(`http://127.0.0.1:${port}/healthz`, [base], readyTimeoutMs);
    } else if (type === 'worker') {
      await proc.waitFor(/workers started/, readyTimeoutMs);
    } else {
      await proc.waitFor(/job schedulers upserted/, readyTimeoutMs);
    }
    return proc;
  }

  // -- backing services ------------------------------------------------------------------------

  /** The Redis or PostgreSQL this stack started, to stop and start again (same port and data). */
  server(service: 'redis' | 'postgres'): ManagedServer {
    const svc = service === 'redis' ? this.redisSvc : this.pgSvc;
    if (!svc) throw new Error(`this stack does not own its ${service === 'redis' ? 'Redis' : 'PostgreSQL'} (it was given a URL)`);
    return svc;
  }

  /** Resident set size of a process in bytes (Linux /proc). */
  static rss(pid: number): number {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const m = /VmRSS:\s+(\d+) kB/.exec(status);
      return m ? Number(m[1]) * 1024 : 0;
    } catch {
      return 0;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.procs.map((p) => p.stop('SIGTERM', 10_000)));
    this.redis.disconnect();
    await this.db.destroy().catch(() => undefined);
    await this.redisSvc?.stop().catch(() => undefined);
    await this.pgSvc?.stop().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
