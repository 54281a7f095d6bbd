/**
 * Real OS processes for tests, drills and benchmarks: start a TypeScript entry (a Procfile process
 * type, the dev launcher, a bench's helper) with node + tsx's loader, capture its output, wait for
 * readiness, talk to it over IPC, stop it with a signal and report how it exited. The backing
 * PostgreSQL and Redis come from backing-services.ts; CPU and memory readings of a process from
 * proc-stat.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { childEnv } from '../../src/platform/config.js';
import net from 'node:net';
import path from 'node:path';
import { nodeArgs, readProcfile, repoRoot } from './procfile.js';
import { cpuTicks } from './proc-stat.js';

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Proc {
  name: string;
  pid: number;
  child: ChildProcess;
  /** stdout and stderr so far, interleaved as they arrived (the last 256 KiB). */
  output(): string;
  /** stdout alone so far (the last 256 KiB): a helper's printed result. */
  stdout(): string;
  /** Resolves with the first match in the output; rejects if the process exits or time runs out. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  isRunning(): boolean;
  /** Send `signal` and wait for the exit; SIGKILL after `timeoutMs` (the result then says so). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
  /** CPU time used so far (utime + stime, in clock ticks); NaN once it is gone. */
  cpuTicks(): number;
}

interface StartOptions {
  /** Node's own flags, before the loader (e.g. --cpu-prof). */
  nodeFlags?: string[];
  /**
   * Copy the output to this process's stderr as it arrives: `all` (a benchmark's processes: its
   * stdout carries only figures), or `stderr` (a helper whose stdout is its result). An exit that
   * no stop() asked for is then reported there too.
   */
  echo?: 'all' | 'stderr';
  /** An IPC channel: `proc.child.send()` and nextMessage(). */
  ipc?: boolean;
  /** Working directory (default the repository root). */
  cwd?: string;
  /**
   * Run the entry's JavaScript from the test run's prebuilt copy (scripts/lib/prebuilt-js.ts) when
   * there is one (PREBUILT_JS_ENV is set), instead of the source through tsx: same code, a quarter
   * to a fifth of the CPU to start for an entry that copy bundles. Tests of how users start the
   * processes leave it off.
   */
  prebuilt?: boolean;
}

/** Where the test run's prebuilt JavaScript lies (set by the test set-up; unset elsewhere). */
export const PREBUILT_JS_ENV = 'SQUID_TEST_PREBUILT_JS';

const MAX_OUTPUT = 256 * 1024;

/** Start `entry` (relative to the repository root) with `env` on top of this process's environment. */
export function startProc(name: string, entry: string, env: Record<string, string>, args: string[] = [], opts: StartOptions = {}): Proc {
  return startNode(name, [...entryArgs(entry, opts.prebuilt), ...args], env, opts);
}

/** node's arguments for a TypeScript entry: its prebuilt JavaScript if asked for and present, else the source through tsx. */
export function entryArgs(entry: string, prebuilt = false): string[] {
  const dir = process.env[PREBUILT_JS_ENV];
  const js = dir && prebuilt ? path.join(dir, entry.replace(/\.ts$/, '.js')) : null;
  return js && existsSync(js) ? [js] : nodeArgs(entry);
}

/** Start node with `argv` as given (a built entry, or flags and a loader of its own), `env` on top of this process's environment. */
export function startNode(name: string, argv: string[], env: Record<string, string>, opts: StartOptions = {}): Proc {
  const stdio = opts.ipc ? (['pipe', 'pipe', 'pipe', 'ipc'] as const) : (['pipe', 'pipe', 'pipe'] as const);
  // The prebuilt copy is for the processes a test starts itself, not for what those start in turn.
  const childVars = { ...childEnv(env) };
  delete childVars[PREBUILT_JS_ENV];
  const child = spawn(process.execPath, [...(opts.nodeFlags ?? []), ...argv], { cwd: opts.cwd ?? repoRoot, env: childVars, stdio: [...stdio] });
  return track(name, child, (signal) => child.kill(signal), opts.echo);
}

/**
 * Run `command` as a Heroku-style platform runs a Procfile line: `bash -c <command>` (bash execs a
 * single command, so the exit status is the command's own), in the repository root, with exactly
 * `env` as its environment (nothing inherited), in its own process group. Signals go to the whole
 * group, as a platform stops every process of a dyno.
 */
export function startShell(name: string, command: string, env: Record<string, string>): Proc {
  const shell = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
  const child = spawn(shell, ['-c', command], { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  return track(name, child, (signal) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      /* the group is gone */
    }
  });
}

function track(name: string, child: ChildProcess, kill: (signal: NodeJS.Signals) => void, echo?: StartOptions['echo']): Proc {
  let out = '';
  let stdout = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer, fromStdout: boolean) => {
    out += d.toString();
    if (out.length > MAX_OUTPUT) out = out.slice(-MAX_OUTPUT);
    if (fromStdout) stdout = (stdout + d.toString()).slice(-MAX_OUTPUT);
    if (echo === 'all' || (echo === 'stderr' && !fromStdout)) process.stderr.write(d);
    for (const l of listeners) l();
  };
  child.stdout!.on('data', (d: Buffer) => onData(d, true));
  child.stderr!.on('data', (d: Buffer) => onData(d, false));
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let running = true;
  let stopping = false;
  void exited.then(({ code, signal }) => {
    running = false;
    if (echo && !stopping && code !== 0) process.stderr.write(`[${name}] exited unexpectedly (code ${code}, signal ${signal})\n`);
    for (const l of listeners) l();
  });

  const proc: Proc = {
    name,
    pid: child.pid!,
    child,
    output: () => out,
    stdout: () => stdout,
    exited,
    isRunning: () => running,
    waitForOutput(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) return done(() => resolve(m));
          if (!running) done(() => reject(new Error(`${name} exited before printing ${pattern}:\n${tail(out)}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`${name} did not print ${pattern} within ${timeoutMs} ms:\n${tail(out)}`))), timeoutMs);
        const done = (fn: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          fn();
        };
        listeners.add(check);
        check();
      });
    },
    cpuTicks: () => cpuTicks(child.pid!),
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      stopping = true;
      if (!running) return exited;
      kill(signal);
      const timer = setTimeout(() => kill('SIGKILL'), timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  return proc;
}

/** Start a process type of the Procfile (`web`, `worker`, `ws`, `clock`, `release`) as the Procfile does. */
export function startProcfileType(name: string, env: Record<string, string>, opts: StartOptions = {}): Proc {
  const type = readProcfile().find((t) => t.name === name);
  if (!type) throw new Error(`the Procfile has no process type "${name}"`);
  return startProc(name, type.entry, env, [], opts);
}

/** Poll `url` until it answers 200; fail early (with their output) if one of `procs` exits. */
export async function waitForHttp(url: string, procs: Proc[] = [], timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const dead = procs.find((p) => !p.isRunning());
    if (dead) throw new Error(`${dead.name} exited while waiting for ${url}:\n${tail(dead.output())}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) {
      throw new Error(`${url} did not answer 200 within ${timeoutMs} ms\n${procs.map((p) => `--- ${p.name}\n${tail(p.output())}`).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Poll until something listens on 127.0.0.1:`port`; fail early (with their output) if one of `procs` exits. */
export async function waitForPort(port: number, procs: Proc[] = [], timeoutMs = 30_000): Promise<void> {
  await waitUntil(
    async () => {
      const dead = procs.find((p) => !p.isRunning());
      if (dead) throw new Error(`${dead.name} exited while waiting for port ${port}:\n${tail(dead.output())}`);
      return portListening(port);
    },
    timeoutMs,
    `port ${port} to listen`,
  );
}

function portListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Poll `cond` every 50 ms until it holds; throw after `timeoutMs`, naming `what`. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await cond()) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The next IPC message `{ type, ... }` of a process started with `ipc`; rejects if it exits first or time runs out. */
export function nextMessage<T = any>(proc: Proc, type: string, timeoutMs = 120_000): Promise<T> {
  const child = proc.child;
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      child.off('message', on);
      child.off('exit', onExit);
      fn();
    };
    const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${type} from ${proc.name} (pid ${proc.pid})`))), timeoutMs);
    const on = (msg: any) => {
      if (msg?.type === type) done(() => resolve(msg as T));
    };
    const onExit = (code: number | null) => done(() => reject(new Error(`${proc.name} (pid ${proc.pid}) exited (${code}) before sending ${type}`)));
    child.on('message', on);
    child.once('exit', onExit);
  });
}

/** Wait for a process that is ending on its own; SIGKILL it after `timeoutMs`. */
export async function waitExit(proc: Proc, timeoutMs = 15_000): Promise<void> {
  const timer = setTimeout(() => void proc.stop('SIGKILL'), timeoutMs);
  await proc.exited;
  clearTimeout(timer);
}

/** SIGKILL whatever is still running (test clean-up after a failure). */
export async function killAll(procs: Iterable<Proc>): Promise<void> {
  await Promise.all([...procs].filter((p) => p.isRunning()).map((p) => p.stop('SIGKILL')));
}

/**
 * Whether a pid is alive (for processes a launcher started, which the test knows only by pid). A
 * zombie (exited, not yet reaped by whoever inherited it) counts as gone.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return !existsSync('/proc/self'); // gone meanwhile, or no procfs to ask
  }
}

/** Wait until none of `pids` is alive. */
export async function waitForPidsGone(pids: number[], timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (pids.some(pidAlive)) {
    if (Date.now() > until) throw new Error(`still running after ${timeoutMs} ms: ${pids.filter(pidAlive).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function tail(s: string, n = 4000): string {
  return s.length > n ? `...${s.slice(-n)}` : s;
}
