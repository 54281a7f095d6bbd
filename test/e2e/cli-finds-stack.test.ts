/**
 * The tools beside `npm start` find its servers: a launcher with its own
 * embedded PostgreSQL and Redis runs in one process; the admin CLI and `npm run migrate`, run as
 * separate processes with no DATABASE_URL or REDIS_URL in their environment (as in a second
 * terminal), use its servers through DATA_DIR/stack.json. Without a launcher, or after it stopped
 * or died, they say that no stack is running and how to start one, and exit 78.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { createDb } from '../../src/platform/db.js';
import { killAll, pidAlive, startProc, startShell, type Proc } from '../../scripts/lib/harness.js';

const dirs: string[] = [];
const procs: Proc[] = [];
let dev: Proc;
let dataDir: string;
let pidsToReap: number[] = [];

function tmpDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'squid-stack-'));
  dirs.push(dir);
  return dir;
}

/** A second terminal: only PATH, HOME and DATA_DIR, nothing of this process's environment. */
function tool(name: string, script: string, args: string[], dir: string): Proc {
  const p = startShell(name, `node --import tsx ${script} ${args.join(' ')}`, {
    PATH: [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: process.env.HOME ?? '/tmp',
    DATA_DIR: dir,
  });
  procs.push(p);
  return p;
}

beforeAll(async () => {
  dataDir = tmpDir();
  const port = await freePort();
  dev = startProc('dev', 'scripts/dev.ts', {
    NO_COLOR: '1',
    DATABASE_URL: '',
    REDIS_URL: '',
    JWT_SECRET: '',
    PG_PORT: String(await freePort()),
    REDIS_PORT: String(await freePort()),
    PORT: String(port),
    WS_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    SEED_DEMO: '0',
  });
  procs.push(dev);
  await dev.waitForOutput(new RegExp(`API +http://127\\.0\\.0\\.1:${port} `), 150_000);
  pidsToReap = [...dev.output().matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]));
}, 180_000);

afterAll(async () => {
  await killAll(procs);
  for (const pid of pidsToReap) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('with `npm start` running', () => {
  it('the launcher records its pid and URLs in DATA_DIR/stack.json, readable by its owner only', () => {
    const file = path.join(dataDir, 'stack.json');
    const state = JSON.parse(readFileSync(file, 'utf8'));
    expect(state).toMatchObject({ pid: dev.pid, databaseUrl: expect.stringMatching(/^postgres:\/\/.*\/squid$/), redisUrl: expect.stringMatching(/^redis:\/\//) });
    expect(statSync(file).mode & 0o077).toBe(0);
  });

  it("the CLI in a second process grants a role on the launcher's database without any URL", async () => {
    const address = `0x${'ab'.repeat(20)}`;
    const cli = tool('cli', 'scripts/cli.ts', ['role', 'grant', address, 'editor'], dataDir);
    expect(await cli.exited, cli.output()).toEqual({ code: 0, signal: null });
    expect(cli.output()).toContain(`granted editor to ${address}`);
    expect(cli.output()).toMatch(/using the services of `npm start` \(pid \d+/);
    // The password of the database URL is not printed.
    expect(cli.output()).not.toContain('postgres:postgres@');

    const { databaseUrl } = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8'));
    const db = createDb(databaseUrl, { max: 1 });
    try {
      const user = await db.selectFrom('users').select('roles').where('wallet_address', '=', address).executeTakeFirst();
      expect(user?.roles).toEqual(['editor']);
    } finally {
      await db.destroy();
    }
  });

  it('`npm run migrate` beside it finds the same database, already migrated', async () => {
    const migrate = tool('migrate', 'scripts/migrate.ts', [], dataDir);
    expect(await migrate.exited, migrate.output()).toEqual({ code: 0, signal: null });
    expect(migrate.output()).toContain('database is up to date');
  });
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

  it('after the launcher stops, its record is gone and the CLI and seed say no stack is running', async () => {
    expect(await dev.stop('SIGTERM', 30_000), dev.output()).toEqual({ code: 0, signal: null });
    expect(existsSync(path.join(dataDir, 'stack.json'))).toBe(false);
    const cli = tool('cli', 'scripts/cli.ts', ['role', 'list'], dataDir);
    const seed = tool('seed', 'scripts/seed-demo.ts', [], dataDir);
    for (const p of [cli, seed]) {
      expect(await p.exited, p.output()).toEqual({ code: 78, signal: null });
      expect(p.output()).toContain('no dev stack (`npm start`) is running');
    }
  });
});
