/**
 * The anonymous daily quota held across two real web processes (src/bin/web.ts, as the Procfile
 * starts them) sharing Redis. A launcher-tier test (test/tiers.ts): it starts two processes; the
 * in-process limit tests are in test/integration/limits.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { waitFor } from '../support/wait.js';

let deps: TestDeps;
const ADDR = '0x' + 'ab'.repeat(20);

beforeAll(async () => {
  deps = await createTestDeps({ ANON_DAILY_QUOTA: '6' });
});
afterAll(() => deps.close());

describe('daily quota across two web processes', () => {
  const procs: ChildProcess[] = [];
  afterAll(async () => {
    for (const p of procs) p.kill('SIGTERM');
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)))));
  });

  async function startWeb(): Promise<string> {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/web.ts'], {
      env: { ...process.env, ...deps.env.env, PORT: String(port), ANON_DAILY_QUOTA: '6', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    procs.push(child);
    const base = `http://127.0.0.1:${port}`;
    // Generous: tsx compiles on start, and a loaded 2-core machine can take a while.
    const up = async () => (await fetch(`${base}/healthz`)).ok; // a refused connection: not up yet
    await waitFor(up, { timeout: 60_000, interval: 50, what: 'web to start' });
    return base;
  }

  it('an anonymous IP gets ANON_DAILY_QUOTA requests in total, whichever process answers', async () => {
    // Fresh counters: the earlier tests of this file used the same IP.
    const keys = await deps.redis.keys(`${deps.config.QUEUE_PREFIX}:quota:ip:*`);
    if (keys.length) await deps.redis.del(...keys);
    const [a, b] = await Promise.all([startWeb(), startWeb()]);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await fetch(`${i % 2 ? a : b}/api/v1/wallet/nonce/${ADDR}/`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    const last = await fetch(`${a}/api/v1/wallet/nonce/${ADDR}/`);
    const body = (await last.json()) as { error: { code: string } };
    expect(body.error.code).toBe('daily_quota_exceeded');
    expect(last.headers.get('ratelimit-limit')).toBe('6');
  }, 90_000);
});
