/**
 * The tools beside `npm start` without a running launcher: the admin CLI, run as its own process with
 * no DATABASE_URL or REDIS_URL in its environment (as in a second terminal), says that no stack is
 * running and how to start one, and exits 78, whether the data directory is empty or holds the
 * record of a launcher that died. With a launcher running (the CLI and `npm run migrate` use its
 * servers through DATA_DIR/stack.json) and after it stopped: test/e2e/launcher.test.ts, on the
 * launcher it starts there.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAll, startShell, type Proc } from '../../scripts/lib/harness.js';
import { secondTerminal } from '../support/second-terminal.js';

const dirs: string[] = [];
const procs: Proc[] = [];

function tmpDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'squid-stack-'));
  dirs.push(dir);
  return dir;
}

function tool(name: string, script: string, args: string[], dir: string): Proc {
  const p = secondTerminal(name, script, args, dir);
  procs.push(p);
  return p;
}

afterAll(async () => {
  await killAll(procs);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('with no stack running', () => {
  it('an empty data directory: the CLI says no stack is running and how to start one, exit 78', async () => {
    const cli = tool('cli', 'scripts/cli.ts', ['role', 'list'], tmpDir());
    expect(await cli.exited).toEqual({ code: 78, signal: null });
    expect(cli.output()).toMatch(/DATABASE_URL and REDIS_URL are not set, and no dev stack \(`npm start`\) is running/);
    expect(cli.output()).toContain('`npm start`');
    expect(cli.output()).toContain('or set DATABASE_URL and REDIS_URL');
  });

  it('a record left by a launcher that died: says it is no longer running, exit 78', async () => {
    const dir = tmpDir();
    const gone = startShell('gone', 'exit 0', { PATH: '/usr/bin:/bin' });
    await gone.exited;
    writeFileSync(path.join(dir, 'stack.json'), JSON.stringify({ pid: gone.pid, databaseUrl: 'postgres://postgres:postgres@127.0.0.1:1/squid', redisUrl: 'redis://127.0.0.1:1' }));
    const cli = tool('cli', 'scripts/cli.ts', ['role', 'list'], dir);
    expect(await cli.exited).toEqual({ code: 78, signal: null });
    expect(cli.output()).toContain(`(pid ${gone.pid}) is no longer running`);
  });
});
