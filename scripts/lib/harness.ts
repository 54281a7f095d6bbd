/**
 * Real OS processes for tests, drills and benchmarks: start a TypeScript entry (a Procfile process
 * type, the dev launcher) with node + tsx's loader, capture its output, wait for readiness, stop it
 * with a signal and report how it exited. The backing PostgreSQL and Redis come from
 * backing-services.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { childEnv } from '../../src/platform/config.js';
import { nodeArgs, readProcfile, repoRoot } from './procfile.js';

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
  /** Resolves with the first match in the output; rejects if the process exits or time runs out. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  isRunning(): boolean;
  /** Send `signal` and wait for the exit; SIGKILL after `timeoutMs` (the result then says so). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit>;
}

const MAX_OUTPUT = 256 * 1024;

/** Start `entry` (relative to the repository root) with `env` on top of this process's environment. */
export function startProc(name: string, entry: string, env: Record<string, string>, args: string[] = []): Proc {
  const child = spawn(process.execPath, [...nodeArgs(entry), ...args], { cwd: repoRoot, env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  return track(name, child, (signal) => child.kill(signal));
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

function track(name: string, child: ChildProcess, kill: (signal: NodeJS.Signals) => void): Proc {
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    if (out.length > MAX_OUTPUT) out = out.slice(-MAX_OUTPUT);
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let running = true;
  void exited.then(() => {
    running = false;
    for (const l of listeners) l();
  });

  const proc: Proc = {
    name,
    pid: child.pid!,
    child,
    output: () => out,
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
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
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
export function startProcfileType(name: string, env: Record<string, string>): Proc {
  const type = readProcfile().find((t) => t.name === name);
  if (!type) throw new Error(`the Procfile has no process type "${name}"`);
  return startProc(name, type.entry, env);
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
