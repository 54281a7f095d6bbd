/**
 * `npm start`: the whole service on one machine, like a Procfile runner.
 *
 * 1. PostgreSQL: DATABASE_URL if set, else an embedded server on 127.0.0.1:PG_PORT with data under
 *    DATA_DIR/pg (database `squid`). Redis: REDIS_URL if set, else redis-server on
 *    127.0.0.1:REDIS_PORT with data under DATA_DIR/redis (persistent, noeviction).
 * 2. Migrations, then the demo data if the database is empty (SEED_DEMO=0 skips it).
 * 3. Every long-running process type of the Procfile as a child process with prefixed logs; the
 *    URLs are printed once web answers /readyz and ws answers /healthz.
 * 4. Ctrl-C / SIGTERM: SIGTERM the children and wait for them, then stop Redis and PostgreSQL.
 *    A child that dies on its own takes everything down with a non-zero exit.
 *
 * If the launcher itself is SIGKILLed, the children exit when their stdin pipe closes
 * (EXIT_WITH_PARENT), a watchdog stops the servers, and the next launcher reaps whatever is left
 * through the servers' pid files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { childEnv, ConfigError, launcherEnv, loadConfig, type Config } from '../src/platform/config.js';
import { createDb } from '../src/platform/db.js';
import { migrateToLatest } from '../src/platform/migrate.js';
import { createDevOutput } from './lib/dev-output.js';
import { removeStackState, writeStackState } from './lib/dev-stack.js';
import { nodeArgs, repoRoot, serviceTypes } from './lib/procfile.js';
import { startPostgres, startRedis, stopChild, type RunningService } from './lib/services.js';
import { startWatchdog, type Watchdog } from './lib/watchdog.js';
import { describeSeed, seedDemo } from './seed-demo.js';
import { DEMO_EDITOR } from './seed/users.js';

const SELF = 'dev';
const READY_TIMEOUT_MS = 180_000;
/** A repeated Ctrl-C within this window is the same keypress relayed by npm and tsx, not a second one. */
const REPEAT_SIGNAL_MS = 2000;
/** Stream connections per address under `npm start` (production default: 5). */
const DEV_WS_MAX_PER_IP = 50;

let env: ReturnType<typeof launcherEnv>;
try {
  env = launcherEnv();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`npm start: ${err.message}\n`);
  process.exit(78);
}

const types = serviceTypes();
const color = env.FORCE_COLOR ? env.FORCE_COLOR !== '0' : !env.NO_COLOR && process.stdout.isTTY === true;
const out = createDevOutput({ names: [SELF, ...types.map((t) => t.name)], color, format: env.DEV_LOG_FORMAT });
const say = (msg: string) => msg.split('\n').forEach((l) => out.line(SELF, l));
// A closed terminal must not turn the shutdown into a crash.
process.stdout.on('error', () => undefined);

const started = Date.now();
const dataDir = path.resolve(env.DATA_DIR);
const lockFile = path.join(dataDir, 'launcher.pid');
const services: { name: string; svc: RunningService }[] = [];
const children = new Map<string, ChildProcess>();
let watchdog: Watchdog | null = null;
let config: Config | undefined;
let stopping = false;
let stoppingSince = 0;
let exitCode = 0;
/** The start-up step in progress; shutdown waits for it so that a server mid-start is stopped too. */
let step: Promise<unknown> = Promise.resolve();

class Stopping extends Error {}

async function during<T>(p: Promise<T>): Promise<T> {
  step = p.catch(() => undefined);
  const value = await p;
  if (stopping) throw new Stopping();
  return value;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------------------------------------

function takeLock() {
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, 'utf8').trim());
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      /* gone */
    }
    if (pid > 0 && pid !== process.pid && cmdline.includes('dev.ts')) {
      throw new Error(`another \`npm start\` (pid ${pid}) is running on ${dataDir}; stop it first, or set DATA_DIR`);
    }
  }
  writeFileSync(lockFile, String(process.pid));
}

async function startServers(): Promise<{ databaseUrl: string; redisUrl: string }> {
  let databaseUrl = env.DATABASE_URL;
  let redisUrl = env.REDIS_URL;
  if (!databaseUrl || !redisUrl) watchdog = startWatchdog();
  if (!databaseUrl) {
    say(`starting PostgreSQL on 127.0.0.1:${env.PG_PORT} (data in ${path.join(dataDir, 'pg')})`);
    const t = Date.now();
    const pg = await during(
      startPostgres({ port: env.PG_PORT, dir: path.join(dataDir, 'pg'), log: say, database: 'squid', durable: true, detached: true }).then((s) => {
        services.push({ name: 'PostgreSQL', svc: s });
        watchdog?.server(s.pid, 'INT');
        return s;
      }),
    );
    say(`PostgreSQL ready in ${seconds(Date.now() - t)} (pid ${pg.pid})`);
    databaseUrl = pg.url;
  } else {
    say(`using DATABASE_URL ${redact(databaseUrl)}`);
  }
  if (!redisUrl) {
    say(`starting Redis on 127.0.0.1:${env.REDIS_PORT} (data in ${path.join(dataDir, 'redis')})`);
    const t = Date.now();
    const redis = await during(
      startRedis({ port: env.REDIS_PORT, dir: path.join(dataDir, 'redis'), persistent: true, log: say, detached: true }).then((s) => {
        services.push({ name: 'Redis', svc: s });
        watchdog?.server(s.pid, 'TERM');
        return s;
      }),
    );
    say(`Redis ready in ${seconds(Date.now() - t)} (pid ${redis.pid})`);
    redisUrl = redis.url;
  } else {
    say(`using REDIS_URL ${redact(redisUrl)}`);
  }
  return { databaseUrl, redisUrl };
}

async function prepareDatabase(config: Config) {
  const db = createDb(config.DATABASE_URL, { max: 1, applicationName: 'dev-launcher' });
  try {
    const applied = await during(migrateToLatest(db));
    say(applied.length ? `applied ${applied.length} migration(s): ${applied.map((r) => r.migrationName).join(', ')}` : 'database schema is up to date');
    if (env.SEED_DEMO) say(describeSeed(await during(seedDemo(db))));
  } finally {
    await db.destroy();
  }
}

/**
 * The log line each process type without an HTTP port prints once it is running (src/bin/worker.ts,
 * src/bin/clock.ts): "ready" is printed only when every process has started, so a Ctrl-C after it
 * finds each one with its shutdown handler installed.
 */
const READY_LINES: Record<string, RegExp> = { worker: /workers started/, clock: /job schedulers upserted/ };
const readyLines = new Map<string, Promise<void>>();

function startChild(name: string, entry: string, vars: Record<string, string>) {
  const child = spawn(process.execPath, nodeArgs(entry), {
    cwd: repoRoot,
    env: childEnv(vars),
    // stdin is a pipe only we hold: when we die, even by SIGKILL, the child reads EOF and exits.
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: Ctrl-C reaches us, and we stop the children in order.
    detached: true,
  });
  child.stdin?.on('error', () => undefined);
  out.attach(name, child.stdout!);
  out.attach(name, child.stderr!);
  const readyLine = READY_LINES[name];
  if (readyLine) readyLines.set(name, outputLine(child.stdout!, readyLine));
  children.set(name, child);
  if (child.pid) {
    say(`${name} started (pid ${child.pid}): tsx ${entry}`);
    watchdog?.app(child.pid);
  }
  child.once('error', (err) => {
    if (!stopping) void shutdown(1, `${name} could not be started: ${err.message}`);
  });
  child.once('exit', (code, signal) => {
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (stopping) {
      // Death by our own SIGTERM is a clean stop too: the process was still loading its modules
      // and had not yet installed its shutdown handler (so it had nothing open to close).
      const clean = code === 0 || signal === 'SIGTERM';
      say(`${name} exited (${how}${signal === 'SIGTERM' ? ', before it had finished starting' : ''})`);
      if (!clean) exitCode ||= 1;
    } else {
      void shutdown(1, `${name} exited unexpectedly (${how})`);
    }
  });
}

/** Resolves when `stream` has printed a line matching `re` (a line may arrive in several chunks). */
function outputLine(stream: NodeJS.ReadableStream, re: RegExp): Promise<void> {
  return new Promise((resolve) => {
    let tail = '';
    const onData = (chunk: Buffer | string) => {
      tail = (tail + chunk.toString()).slice(-4096);
      if (!re.test(tail)) return;
      stream.off('data', onData);
      resolve();
    };
    stream.on('data', onData);
  });
}

/** Every process with a ready line has printed it (or the launcher is stopping; the time-out is the HTTP waits'). */
async function waitReadyLines(): Promise<void> {
  const until = Date.now() + READY_TIMEOUT_MS;
  for (const [name, line] of readyLines) {
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), Math.max(0, until - Date.now())).unref());
    if ((await Promise.race([line, timeout])) === 'timeout') throw new Error(`${name} did not report that it started within ${seconds(READY_TIMEOUT_MS)}`);
    if (stopping) throw new Stopping();
  }
}

async function waitReady(url: string): Promise<void> {
  const until = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < until) {
    if (stopping) throw new Stopping();
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} did not answer 200 within ${seconds(READY_TIMEOUT_MS)}`);
}

async function shutdown(code: number, reason: string) {
  if (stopping) return;
  stopping = true;
  stoppingSince = Date.now();
  exitCode = code;
  say(reason.includes('\n') ? `${reason}\nstopping` : `${reason}; stopping`);
  const timeoutMs = (config?.SHUTDOWN_TIMEOUT_MS ?? 10_000) + 5000;
  await Promise.all([...children].map(([name, child]) => stopChild(child, 'SIGTERM', timeoutMs, () => say(`${name} did not exit within ${seconds(timeoutMs)}; killing it`))));
  await step;
  for (const { name, svc } of services.reverse()) {
    try {
      await svc.stop();
      say(`${name} stopped`);
    } catch (err) {
      say(`stopping ${name} failed: ${(err as Error).message}`);
      exitCode ||= 1;
    }
  }
  watchdog?.disarm();
  removeStackState(dataDir, process.pid);
  try {
    if (readFileSync(lockFile, 'utf8').trim() === String(process.pid)) rmSync(lockFile);
  } catch {
    /* no lock taken */
  }
  say(exitCode === 0 ? 'stopped' : `stopped (exit ${exitCode})`);
  process.exit(exitCode);
}

/** Whether the demo editor is in this database (seeded now or on an earlier start). */
async function demoEditorListed(c: Config): Promise<boolean> {
  const db = createDb(c.DATABASE_URL, { max: 1, applicationName: 'dev' });
  try {
    const row = await db.selectFrom('users').select('roles').where('wallet_address', '=', DEMO_EDITOR.address).executeTakeFirst();
    return Boolean(row?.roles.includes('editor'));
  } finally {
    await db.destroy();
  }
}

/** What a newcomer needs once everything answers: where things are and how to sign in. */
function banner(c: Config, web: string, ws: string, demoEditor: boolean): string[] {
  const sse = `http://${listenHost(c.HOST)}:${c.WS_PORT}/sse/news/`;
  const lines = [
    `  API        ${web}   (OpenAPI document: ${web}/api/v1/openapi.json)`,
    `  API docs   ${web}/api/v1/docs`,
    `  Editors    ${web}/editor/   (the review console; sign in with an editor's wallet)`,
    `  WebSocket  ${ws}   (send Origin: ${c.TRUSTED_ORIGIN})`,
    `  SSE        ${sse}   (the same events as Server-Sent Events)`,
    // No URLs to copy: the CLI finds this stack through DATA_DIR/stack.json.
    `  Admin CLI  npm run cli -- help   (in another terminal; it uses these servers, see ${path.join(dataDir, 'stack.json')})`,
  ];
  if (demoEditor) {
    lines.push(
      `  Demo editor  ${DEMO_EDITOR.username} ${DEMO_EDITOR.address}: the published development account 0 (mnemonic "test test ... junk"),`,
      `               private key ${DEMO_EDITOR.privateKey}; never send real funds to it`,
    );
  }
  if (c.OUTBOUND_ALLOW_PRIVATE)
    lines.push('  Outbound fetches may reach private and loopback addresses (OUTBOUND_ALLOW_PRIVATE=true, the npm start default; never in production).');
  lines.push(`  Stream connections per address: ${c.WS_MAX_PER_IP} (WS_MAX_PER_IP; the npm start default is ${DEV_WS_MAX_PER_IP}, production's 5).`);
  return lines;
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

function listenHost(host: string): string {
  return host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
}

// ---------------------------------------------------------------------------------------------

for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (!stopping) return void shutdown(0, `received ${sig}`);
    if (Date.now() - stoppingSince < REPEAT_SIGNAL_MS) return;
    say(`received ${sig} again: killing the processes`);
    for (const child of children.values()) child.kill('SIGKILL');
  });
}

/** The children's variables; DATABASE_URL and REDIS_URL are filled in once the servers run. */
function childVars(databaseUrl: string, redisUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    PORT: String(env.PORT),
    WS_PORT: String(env.WS_PORT),
    DATA_DIR: dataDir,
    // Browsers on the printed URL are the trusted origin unless told otherwise.
    TRUSTED_ORIGIN: env.TRUSTED_ORIGIN ?? `http://127.0.0.1:${env.PORT}`,
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://127.0.0.1:${env.PORT}`,
    EXIT_WITH_PARENT: '1',
    // Development defaults (an explicit variable wins): a developer submits and subscribes local
    // URLs, and keeps a few console tabs and test clients open on the stream from one address.
    OUTBOUND_ALLOW_PRIVATE: process.env.OUTBOUND_ALLOW_PRIVATE ?? 'true',
    WS_MAX_PER_IP: process.env.WS_MAX_PER_IP ?? String(DEV_WS_MAX_PER_IP),
  };
}

try {
  // Validate the children's configuration before starting anything (every bad variable listed,
  // exit 78); this also creates the dev JWT secret before four children race to create it.
  loadConfig(childEnv(childVars(env.DATABASE_URL ?? 'postgres://unset/squid', env.REDIS_URL ?? 'redis://unset')));
  takeLock();
  const { databaseUrl, redisUrl } = await startServers();
  const vars = childVars(databaseUrl, redisUrl);
  config = loadConfig(childEnv(vars));
  await prepareDatabase(config);
  // From here the CLI, `npm run seed` and `npm run migrate` in another terminal find these servers.
  writeStackState(dataDir, { pid: process.pid, databaseUrl, redisUrl, webUrl: `http://${listenHost(config.HOST)}:${config.PORT}`, startedAt: new Date().toISOString() });
  for (const t of types) startChild(t.name, t.entry, vars);
  const host = listenHost(config.HOST);
  const web = `http://${host}:${config.PORT}`;
  const ws = `ws://${host}:${config.WS_PORT}/ws/news/`;
  await Promise.all([waitReady(`${web}/readyz`), waitReady(`http://${host}:${config.WS_PORT}/healthz`), waitReadyLines()]);
  say(`ready in ${seconds(Date.now() - started)}`);
  for (const line of banner(config, web, ws, await demoEditorListed(config))) say(line);
  say('Ctrl-C stops everything.');
} catch (err) {
  if (!(err instanceof Stopping)) {
    const code = err instanceof ConfigError ? 78 : 1;
    await shutdown(code, `start-up failed: ${(err as Error).message}`);
  }
}
