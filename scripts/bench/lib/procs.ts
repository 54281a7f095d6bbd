/**
 * Process plumbing for benchmarks that run the Procfile's processes: start one as the Procfile does
 * (`node --import tsx src/bin/<name>.ts`, its own environment), wait for it, stop it; CPU time of a
 * process, of a process tree and of PostgreSQL backends by application_name, from /proc; typed
 * IPC waits; percentiles and a 1 ms histogram.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { childEnv } from '../../../src/platform/config.js';
import { stopChild } from '../../lib/services.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Kernel clock ticks per second for /proc/<pid>/stat utime/stime (USER_HZ, 100 on Linux). */
export const TICKS_PER_S = 100;

/** utime + stime of a process in ticks; NaN once it is gone. */
export function cpuTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

/** Every process whose parent is `ppid` (one level: PostgreSQL's backends are the postmaster's children). */
function childPids(ppid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const rest = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1];
      if (Number(rest.split(' ')[1]) === ppid) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * CPU ticks of a process and its direct children (a PostgreSQL server: postmaster + backends +
 * autovacuum workers...), as a running total that never goes down: each reading remembers every pid
 * it saw, so a child that exits between two readings keeps what it had used when last seen (it
 * loses only what it used after that) and one that appears counts from zero.
 */
export class TreeMeter {
  private readonly seen = new Map<number, number>();

  constructor(private readonly root: number) {
    this.ticks();
  }

  ticks(): number {
    for (const pid of [this.root, ...childPids(this.root)]) {
      const t = cpuTicks(pid);
      if (Number.isFinite(t)) this.seen.set(pid, t);
    }
    let sum = 0;
    for (const t of this.seen.values()) sum += t;
    return sum;
  }
}

/**
 * CPU ticks so far of every client backend, keyed by pid, with its application_name. A delta
 * between two snapshots (pidCpuDelta) is the CPU those backends spent in between; a backend that
 * appeared in between counts from zero, one that exited in between is lost (pools here keep theirs).
 */
export async function backendCpu(admin: pg.Client): Promise<Map<number, { app: string; ticks: number }>> {
  const r = await admin.query<{ pid: number; app: string }>(
    `SELECT pid, application_name AS app FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  const m = new Map<number, { app: string; ticks: number }>();
  for (const row of r.rows) {
    const t = cpuTicks(row.pid);
    if (Number.isFinite(t)) m.set(row.pid, { app: row.app, ticks: t });
  }
  return m;
}

/** CPU seconds per application_name between two backendCpu snapshots. */
export function backendCpuDelta(before: Map<number, { app: string; ticks: number }>, after: Map<number, { app: string; ticks: number }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [pid, a] of after) {
    const d = a.ticks - (before.get(pid)?.ticks ?? 0);
    out.set(a.app, (out.get(a.app) ?? 0) + d / TICKS_PER_S);
  }
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cond()) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export function portListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Start `src/bin/<name>.ts` as the Procfile does, with `env` over this process's environment. Its
 * stdin is a pipe and EXIT_WITH_PARENT is on: if the benchmark dies, so does the process.
 */
export function startService(name: 'web' | 'worker' | 'ws' | 'clock', env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', `src/bin/${name}.ts`], {
    cwd: repoRoot,
    env: childEnv({ ...env, EXIT_WITH_PARENT: 'true' }),
    // Its log lines go to our stderr: stdout carries only the figures.
    stdio: ['pipe', 2, 2],
  });
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`[bench] ${name} exited unexpectedly (code ${code}, signal ${signal})\n`);
  });
  return {
    name,
    child,
    pid: child.pid!,
    async stop() {
      stopping = true;
      await stopChild(child, 'SIGTERM', 15_000);
    },
  };
}

/** Fork a helper module (its own process, tsx loaded) with an IPC channel. */
export function forkHelper(modulePath: string, args: string[] = []): ChildProcess {
  return fork(modulePath, args, { cwd: repoRoot, execArgv: ['--import', 'tsx'], stdio: ['ignore', 2, 2, 'ipc'] });
}

/** The next IPC message of `type` from a child. */
export function nextMessage<T = any>(child: ChildProcess, type: string, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', on);
      child.off('exit', onExit);
      reject(new Error(`timed out waiting for ${type} from pid ${child.pid}`));
    }, timeoutMs);
    const on = (msg: any) => {
      if (msg?.type !== type) return;
      clearTimeout(timer);
      child.off('message', on);
      child.off('exit', onExit);
      resolve(msg as T);
    };
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      child.off('message', on);
      reject(new Error(`pid ${child.pid} exited (${code}) before sending ${type}`));
    };
    child.on('message', on);
    child.once('exit', onExit);
  });
}

export function waitExit(child: ChildProcess, timeoutMs = 15_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export const median = (xs: readonly number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Nearest-rank percentile of an ascending array (p in 0..1). */
export const pct = (sorted: readonly number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : NaN);

/** Latency histogram in 1 ms buckets (the clocks compared here have 1 ms resolution), up to `maxMs`. */
export class MsHistogram {
  readonly buckets: Uint32Array;
  count = 0;
  negatives = 0;
  max = -Infinity;

  constructor(readonly maxMs = 120_000) {
    this.buckets = new Uint32Array(maxMs + 1);
  }

  add(ms: number): void {
    this.count++;
    if (ms < 0) this.negatives++;
    if (ms > this.max) this.max = ms;
    this.buckets[Math.min(this.maxMs, Math.max(0, Math.round(ms)))]++;
  }

  /** [bucket, count] pairs of the non-empty buckets (for IPC). */
  sparse(): [number, number][] {
    const out: [number, number][] = [];
    for (let i = 0; i < this.buckets.length; i++) if (this.buckets[i]) out.push([i, this.buckets[i]]);
    return out;
  }

  merge(sparse: readonly [number, number][], extra: { negatives: number; max: number }): void {
    for (const [b, n] of sparse) {
      this.buckets[b] += n;
      this.count += n;
    }
    this.negatives += extra.negatives;
    this.max = Math.max(this.max, extra.max);
  }

  quantile(p: number): number {
    if (this.count === 0) return NaN;
    const target = Math.max(1, Math.ceil(p * this.count));
    let acc = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      acc += this.buckets[i];
      if (acc >= target) return i;
    }
    return this.maxMs;
  }
}

/** Busy and total CPU ticks of the whole machine, all CPUs (first line of /proc/stat). */
export function machineTicks(): { busy: number; total: number } {
  const [, ...v] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = v.slice(0, 8).map(Number); // user nice system idle iowait irq softirq steal
  const idle = n[3] + n[4];
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/**
 * pg_locks' view of the event-writer key (4995617886660722687, classid high 32 bits, objid low): a
 * transaction holds it, shared, from drawing an event id to its end (event_log_draw(), migration
 * 20261128T090000_event_log_insert_time_ids). Before that migration, the exclusive event-order lock
 * held through each event-writing COMMIT.
 */
const EVENT_LOCK_CLASSID = 1163132927;
const EVENT_LOCK_OBJID = 4294967295;

/**
 * Samples pg_stat_activity every `everyMs` while running: for the backends of one application_name,
 * the mean number in each state (running, waiting for an advisory lock, idle in a transaction
 * waiting for the client, other waits); and whether an event writer is in flight (a transaction
 * holding the event-writer key from drawing an event id to its end) and what it is doing: running
 * (its INSERT or the COMMIT) or idle in its transaction, waiting for its client to send the next
 * statement. Shows how long ids above the horizon wait for the writers below them.
 */
export class ActivitySampler {
  private timer: NodeJS.Timeout | null = null;
  private samples = 0;
  private withLockWaiters = 0;
  private readonly holder = { none: 0, active: 0, idleInTx: 0 };
  private readonly sums = { running: 0, advisoryLock: 0, otherLock: 0, idleInTx: 0, otherWait: 0 };

  constructor(
    private readonly admin: pg.Client,
    private readonly app: string,
    private readonly everyMs = 100,
  ) {}

  start(): void {
    const tick = async () => {
      try {
        const r = await this.admin.query<{ app: string; state: string | null; wtype: string | null; wevent: string | null; holds: boolean }>(
          `SELECT a.application_name AS app, a.state, a.wait_event_type AS wtype, a.wait_event AS wevent,
                  EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted
                          AND l.classid = ${EVENT_LOCK_CLASSID} AND l.objid = ${EVENT_LOCK_OBJID}) AS holds
           FROM pg_stat_activity a WHERE a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()`,
        );
        this.samples++;
        const holder = r.rows.find((row) => row.holds);
        if (!holder) this.holder.none++;
        else if (holder.state === 'idle in transaction') this.holder.idleInTx++;
        else this.holder.active++;
        r.rows = r.rows.filter((row) => row.app === this.app);
        if (r.rows.some((row) => row.state === 'active' && row.wtype === 'Lock' && row.wevent === 'advisory')) this.withLockWaiters++;
        for (const row of r.rows) {
          if (row.state === 'idle in transaction') this.sums.idleInTx++;
          else if (row.state !== 'active') continue;
          else if (row.wtype === 'Lock' && row.wevent === 'advisory') this.sums.advisoryLock++;
          else if (row.wtype === 'Lock') this.sums.otherLock++;
          else if (row.wtype) this.sums.otherWait++;
          else this.sums.running++;
        }
      } catch {
        // sampling is best effort
      }
      if (this.timer) this.timer = setTimeout(() => void tick(), this.everyMs);
    };
    this.timer = setTimeout(() => void tick(), this.everyMs);
  }

  stop(): {
    samples: number;
    running: number;
    advisoryLock: number;
    lockContended: number;
    otherLock: number;
    idleInTx: number;
    otherWait: number;
    /** Share of samples in which the event-order lock was free / held by a running backend / held by one idle in its transaction. */
    holder: { none: number; active: number; idleInTx: number };
  } {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const n = Math.max(1, this.samples);
    return {
      samples: this.samples,
      running: this.sums.running / n,
      advisoryLock: this.sums.advisoryLock / n,
      /** Share of samples in which at least one backend waited for an advisory lock. */
      lockContended: this.withLockWaiters / n,
      otherLock: this.sums.otherLock / n,
      idleInTx: this.sums.idleInTx / n,
      otherWait: this.sums.otherWait / n,
      holder: { none: this.holder.none / n, active: this.holder.active / n, idleInTx: this.holder.idleInTx / n },
    };
  }
}
