/**
 * The dev launcher (`npm start`, scripts/dev.ts) as a real process.
 *
 * 1. With DATABASE_URL/REDIS_URL pointing at this file's own database and Redis: it migrates, seeds
 *    the empty database, starts every Procfile process, prints the URLs, and on SIGTERM stops
 *    them all and exits 0.
 * 2. With embedded PostgreSQL and Redis (its own ports and DATA_DIR): after a SIGKILL of the
 *    launcher nothing is left running, and a second launcher starts on the same data. Beside that
 *    second launcher, the admin CLI and `npm run migrate`, run as separate processes with no
 *    DATABASE_URL or REDIS_URL in their environment (as in a second terminal), use its servers
 *    through DATA_DIR/stack.json; once it stopped, they say that no stack is running and exit 78.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { serviceTypes } from '../../scripts/lib/procfile.js';
import { createDb } from '../../src/platform/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { killAll, pidAlive, startProc, waitForPidsGone, type Proc } from '../../scripts/lib/harness.js';
import { secondTerminal } from '../support/second-terminal.js';

const launchers: Proc[] = [];
const envs: TestEnv[] = [];
const dirs: string[] = [];
const pidsToReap: number[] = [];

afterAll(async () => {
  await killAll(launchers);
  // Whatever a failed test left behind (children, servers) goes too.
  for (const pid of pidsToReap) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const e of envs) await e.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tmpDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'squid-launcher-'));
  dirs.push(dir);
  return dir;
}

function tool(name: string, script: string, args: string[], dataDir: string): Proc {
  const p = secondTerminal(name, script, args, dataDir);
  launchers.push(p);
  return p;
}

function launch(env: Record<string, string>): Proc {
  const p = startProc('dev', 'scripts/dev.ts', { NO_COLOR: '1', LOG_LEVEL: 'info', ...env });
  launchers.push(p);
  return p;
}

/** The child pids the launcher reported (`web started (pid 123)`). */
function childPids(p: Proc): Record<string, number> {
  const pids: Record<string, number> = {};
  for (const m of p.output().matchAll(/^dev\s+\| (\w+) started \(pid (\d+)\)/gm)) pids[m[1]] = Number(m[2]);
  pidsToReap.push(...Object.values(pids));
  return pids;
}

async function ports() {
  return { port: await freePort(), wsPort: await freePort() };
}

async function waitForBanner(p: Proc, port: number, wsPort: number) {
  // Generous: a fresh clone on a loaded machine compiles every module on first start.
  await p.waitForOutput(new RegExp(`API +http://127\\.0\\.0\\.1:${port} `), 150_000);
  await p.waitForOutput(new RegExp(`WebSocket +ws://127\\.0\\.0\\.1:${wsPort}/ws/news/ `), 1000);
}

describe('dev launcher with DATABASE_URL and REDIS_URL', () => {
  it('migrates, seeds, starts every process, prints the URLs, and stops everything on SIGTERM', async () => {
    const env = await createTestEnv();
    envs.push(env);
    const { port, wsPort } = await ports();
    const dev = launch({
      DATABASE_URL: env.databaseUrl,
      REDIS_URL: env.redisUrl,
      QUEUE_PREFIX: env.prefix,
      PORT: String(port),
      WS_PORT: String(wsPort),
      DATA_DIR: tmpDataDir(),
      SEED_DEMO: '1',
    });
    await waitForBanner(dev, port, wsPort);
    await dev.waitForOutput(/Ctrl-C stops everything/, 5000);
    // What a newcomer needs is in the banner: docs, console, both streams, the demo editor's sign-in.
    const web = `http://127.0.0.1:${port}`;
    expect(dev.output()).toContain(`API docs   ${web}/api/v1/docs`);
    expect(dev.output()).toContain(`Editors    ${web}/editor/ `);
    expect(dev.output()).toContain(`SSE        http://127.0.0.1:${wsPort}/sse/news/ `);
    expect(dev.output()).toMatch(/Demo editor +demo_editor 0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266/);
    expect(dev.output()).toContain('private key 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    // npm start's development defaults, each named with its variable.
    expect(dev.output()).toContain('OUTBOUND_ALLOW_PRIVATE=true, the npm start default');
    expect(dev.output()).toContain('Stream connections per address: 50 (WS_MAX_PER_IP');
    expect((await fetch(`${web}/api/v1/docs`)).status).toBe(200);
    // Signed out, the console answers its sign-in page.
    const consolePage = await fetch(`${web}/editor/`);
    expect([consolePage.status, consolePage.headers.get('content-type')]).toEqual([401, 'text/html; charset=utf-8']);
    const pids = childPids(dev);
    expect(Object.keys(pids).sort()).toEqual(
      serviceTypes()
        .map((t) => t.name)
        .sort(),
    );
    // Prefixed, rendered log lines of each child.
    expect(dev.output()).toMatch(/^web +\| \d\d:\d\d:\d\d INFO +web listening/m);
    expect(dev.output()).toMatch(/^ws +\| \d\d:\d\d:\d\d INFO +ws listening/m);

    const res = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).info.version).toBe('1.4.0');

    const db = createDb(env.databaseUrl, { max: 1 });
    try {
      const statuses = await db.selectFrom('articles').select('status').distinct().execute();
      expect(statuses.map((s) => s.status).sort()).toEqual(['approved', 'killed', 'retracted', 'scheduled', 'submitted']);
      const roles = await db.selectFrom('users').select('roles').execute();
      expect(roles.some((r) => r.roles.includes('editor'))).toBe(true);
      expect(roles.some((r) => r.roles.includes('staff'))).toBe(true);
      expect(
        Number(
          (
            await db
              .selectFrom('yaps')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ).toBeGreaterThan(0);
      expect(
        Number(
          (
            await db
              .selectFrom('votes')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ),
      ).toBeGreaterThan(0);
    } finally {
      await db.destroy();
    }

    expect(await dev.stop('SIGTERM', 30_000), dev.output()).toEqual({ code: 0, signal: null });
    for (const name of Object.keys(pids)) expect(dev.output()).toContain(`${name} exited (code 0)`);
    for (const pid of Object.values(pids)) expect(pidAlive(pid)).toBe(false);
  }, 240_000);
});

describe('dev launcher with embedded PostgreSQL and Redis', () => {
  let dataDir: string;
  let dev2: Proc;

  it('leaves nothing running after a SIGKILL, and a second launcher starts on the same data', async () => {
    dataDir = tmpDataDir();
    const common = {
      // Unset: the launcher starts its own servers.
      DATABASE_URL: '',
      REDIS_URL: '',
      PG_PORT: String(await freePort()),
      REDIS_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      JWT_SECRET: '',
    };
    const first = await ports();
    const dev1 = launch({ ...common, PORT: String(first.port), WS_PORT: String(first.wsPort) });
    await waitForBanner(dev1, first.port, first.wsPort);
    expect(dev1.output()).toContain('loaded demo data');
    const servers = [...dev1.output().matchAll(/^dev\s+\| (?:PostgreSQL|Redis) ready .*\(pid (\d+)\)$/gm)].map((m) => Number(m[1]));
    const apps = Object.values(childPids(dev1));
    pidsToReap.push(...servers);
    expect(servers).toHaveLength(2);

    expect(await dev1.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    // The children exit on their closed stdin; the watchdog then stops PostgreSQL and Redis.
    await waitForPidsGone([...apps, ...servers], 30_000);

    const second = await ports();
    dev2 = launch({ ...common, PORT: String(second.port), WS_PORT: String(second.wsPort) });
    await waitForBanner(dev2, second.port, second.wsPort);
    expect(dev2.output()).toContain('database already has data; demo data not loaded');
    pidsToReap.push(...[...dev2.output().matchAll(/^dev\s+\| (?:PostgreSQL|Redis) ready .*\(pid (\d+)\)$/gm)].map((m) => Number(m[1])));
    childPids(dev2);
    const ready = await fetch(`http://127.0.0.1:${second.port}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ok', postgres: 'ok', redis: 'ok' });
  }, 360_000);

  // The tools beside it (cli-finds-stack.test.ts has the cases without a running launcher).
  it('records its pid and URLs in DATA_DIR/stack.json, readable by its owner only', () => {
    const file = path.join(dataDir, 'stack.json');
    const state = JSON.parse(readFileSync(file, 'utf8'));
    expect(state).toMatchObject({ pid: dev2.pid, databaseUrl: expect.stringMatching(/^postgres:\/\/.*\/squid$/), redisUrl: expect.stringMatching(/^redis:\/\//) });
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

  it('stops its servers on SIGTERM; its record is then gone and the CLI and seed say no stack is running', async () => {
    expect(await dev2.stop('SIGTERM', 30_000), dev2.output()).toEqual({ code: 0, signal: null });
    expect(dev2.output()).toMatch(/PostgreSQL stopped/);
    expect(dev2.output()).toMatch(/Redis stopped/);
    expect(existsSync(path.join(dataDir, 'stack.json'))).toBe(false);
    const cli = tool('cli', 'scripts/cli.ts', ['role', 'list'], dataDir);
    const seed = tool('seed', 'scripts/seed-demo.ts', [], dataDir);
    for (const p of [cli, seed]) {
      expect(await p.exited, p.output()).toEqual({ code: 78, signal: null });
      expect(p.output()).toContain('no dev stack (`npm start`) is running');
    }
  });
});
