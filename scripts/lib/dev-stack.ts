/**
 * How the tools beside `npm start` (the admin CLI, `npm run seed`, `npm run migrate`) find its
 * services. The launcher writes DATA_DIR/stack.json once its database is migrated (its pid and the
 * URLs it gave its processes) and removes it when it stops; a tool started without DATABASE_URL /
 * REDIS_URL reads it, checks that the launcher is still alive and that both servers accept
 * connections, and uses them. Nothing of this applies in production (NODE_ENV=production): there
 * a missing DATABASE_URL stays an error.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { launcherEnv } from '../../src/platform/config.js';

const STACK_FILE = 'stack.json';

interface StackState {
  pid: number;
  databaseUrl: string;
  redisUrl: string;
  webUrl: string;
  startedAt: string;
}

function stackFile(dataDir: string): string {
  return path.join(path.resolve(dataDir), STACK_FILE);
}

/** The launcher: record the running stack (owner-only: the URLs carry the database password). */
export function writeStackState(dataDir: string, state: StackState): void {
  writeFileSync(stackFile(dataDir), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}

/** The launcher, stopping: remove the record if it is still ours. */
export function removeStackState(dataDir: string, pid: number): void {
  try {
    const state = JSON.parse(readFileSync(stackFile(dataDir), 'utf8')) as StackState;
    if (state.pid === pid) rmSync(stackFile(dataDir));
  } catch {
    /* none, or not ours */
  }
}

/** The missing URL(s), the stack could not be used, and what to do about it. */
export class NoStackError extends Error {}

function launcherAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /scripts\/dev\.(ts|js)/.test(cmd);
  } catch {
    return !existsSync('/proc/self'); // no procfs: trust the pid check
  }
}

function accepts(url: string, timeoutMs = 1000): Promise<boolean> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol.startsWith('redis') ? 6379 : 5432));
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/**
 * `env` with DATABASE_URL and REDIS_URL filled in from the running `npm start` where they are
 * unset, and a note saying so (null when nothing was filled in). Throws NoStackError, with how to
 * start a stack, when one is needed and none is running.
 */
export async function withDevStack(env: Record<string, string | undefined>): Promise<{ env: Record<string, string | undefined>; note: string | null }> {
  const missing = (['DATABASE_URL', 'REDIS_URL'] as const).filter((k) => !env[k]);
  if (missing.length === 0 || env.NODE_ENV === 'production') return { env, note: null };
  let dataDir = '.data';
  try {
    dataDir = launcherEnv(env).DATA_DIR;
  } catch {
    /* the caller's own validation reports bad variables */
  }
  const file = stackFile(dataDir);
  const how =
    `Start one in another terminal with \`npm start\` (same directory${env.DATA_DIR ? ` and DATA_DIR=${env.DATA_DIR}` : ''}), ` +
    `wait for "ready", and run this again; or set ${missing.join(' and ')}.`;
  const fail = (why: string) => new NoStackError(`${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set, and ${why}.\n${how}`);
  let state: StackState;
  try {
    state = JSON.parse(readFileSync(file, 'utf8')) as StackState;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw fail(`no dev stack (\`npm start\`) is running: ${file} does not exist`);
    throw fail(`${file} could not be read (${(err as Error).message})`);
  }
  if (!Number.isInteger(state.pid) || !state.databaseUrl || !state.redisUrl) throw fail(`${file} is not a stack record`);
  if (!launcherAlive(state.pid)) throw fail(`the \`npm start\` that wrote ${file} (pid ${state.pid}) is no longer running`);
  const [pgUp, redisUp] = await Promise.all([accepts(state.databaseUrl), accepts(state.redisUrl)]);
  if (!pgUp || !redisUp) {
    throw fail(`the \`npm start\` stack (pid ${state.pid}) does not answer on ${[!pgUp && redact(state.databaseUrl), !redisUp && state.redisUrl].filter(Boolean).join(' and ')}`);
  }
  const filled = { ...env, DATABASE_URL: env.DATABASE_URL || state.databaseUrl, REDIS_URL: env.REDIS_URL || state.redisUrl };
  return {
    env: filled,
    note: `using the services of \`npm start\` (pid ${state.pid}, ${file}): ${missing.map((k) => `${k}=${redact(filled[k]!)}`).join(' ')}`,
  };
}
