/**
 * A Redis that keeps its connections but stops answering (redis-server stopped with SIGSTOP: the
 * kernel still accepts and holds the TCP traffic, so ioredis stays `ready`). The API must answer
 * 503 service_unavailable within the command time-out (REDIS_COMMAND_TIMEOUT_MS), also for a
 * request that had passed its Redis quota check before Redis stopped, and recover by itself after
 * SIGCONT. The Redis here is this file's own redis-server, never the shared test Redis.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { flushDailyQuota, QUOTA_TRUST_MS } from '../../src/platform/http/rate-limit.js';
import { freePort, startRedis, type RunningService } from '../../scripts/lib/services.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request, { type TestResponse } from '../support/request.js';
import { waitFor } from '../support/wait.js';

const TIMEOUT_MS = 800;
/** What a 503 may take beyond the command time-out on this shared, loaded machine. */
const SLACK_MS = 1500;
const BROWSER = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0' };

let redis: RunningService;
let redisPort: number;
let dir: string;
let stopped = false;
let deps: TestDeps;
let http: ReturnType<typeof request>;
let alice: Session;
let articleId: number;

function stop() {
  process.kill(redis.pid, 'SIGSTOP');
  stopped = true;
}
function resume() {
  process.kill(redis.pid, 'SIGCONT');
  stopped = false;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'squid-hung-redis-'));
  redisPort = await freePort();
  redis = await startRedis({ port: redisPort, dir, persistent: false, log: () => undefined });
  deps = await createTestDeps({ REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: String(TIMEOUT_MS) });
  http = request(createApp(deps));
  alice = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'alice' });
  const r = await http.post('/api/v1/news/post', { url: 'https://example.com/a/hung-1', headline: 'Redis hangs, the API does not' }, alice.bearer);
  expect(r.status).toBe(201);
  articleId = r.body.article_id;
  await deps.db.updateTable('articles').set({ status: 'approved' }).where('id', '=', articleId).execute();
});
afterAll(async () => {
  if (stopped) resume();
  await http?.close();
  await deps?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let submissions = 0;
const routes: Record<string, () => Promise<TestResponse>> = {
  feed: () => http.get('/api/v1/news/'),
  submission: () =>
    http.post('/api/v1/news/post', { url: `https://example.com/a/hung-${++submissions + 1}`, headline: `A story told while Redis hangs ${submissions}` }, alice.bearer),
  "auth'd GET": () => http.get('/api/v1/wallet/me/', alice.bearer),
  click: () => http.get(`/api/v1/news/${articleId}/click`, BROWSER),
};

async function timed(f: () => Promise<TestResponse>) {
  const t = Date.now();
  const r = await f();
  return { r, ms: Date.now() - t };
}

function expectUnavailable(name: string, { r, ms }: { r: TestResponse; ms: number }) {
  expect({ name, status: r.status, code: r.body?.error?.code }).toEqual({ name, status: 503, code: 'service_unavailable' });
  expect(r.headers.get('retry-after')).toBe('5');
  expect(ms, `${name} answered after ${ms} ms`).toBeLessThan(TIMEOUT_MS + SLACK_MS);
}

describe('a hung Redis (SIGSTOP)', () => {
  it('503 service_unavailable within the command time-out on feed, submission and authenticated routes; recovers after SIGCONT', async () => {
    for (const [name, f] of Object.entries(routes)) expect([name, (await f()).status]).toEqual([name, name === 'submission' ? 201 : name === 'click' ? 302 : 200]);

    // alice's count as Redis holds it once the process has sent what it counted.
    const quotaKey = `${deps.config.QUEUE_PREFIX}:quota:user:${alice.userId}:${new Date().toISOString().slice(0, 10)}`;
    const counted = async () => Number(await deps.redis.get(quotaKey));
    await flushDailyQuota(deps.redis);
    const before = await counted();

    stop();
    // Within QUOTA_TRUST_MS of Redis's last answer a caller far from its limit may still be
    // admitted on the process's own count (src/platform/http/rate-limit.ts); every request answers within
    // one time-out either way, and what was admitted reaches Redis once it answers again.
    const early = await Promise.all(Object.entries(routes).map(async ([name, f]) => [name, await timed(f)] as const));
    let admitted = 0;
    for (const [name, t] of early) {
      if (t.r.status === 503) expectUnavailable(name, t);
      else {
        expect([name, t.r.status]).toEqual([name, name === 'submission' ? 201 : name === 'click' ? 302 : 200]);
        expect(t.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
        if (name === 'submission' || name === "auth'd GET") admitted++;
      }
    }
    // A real wait: the tally's trust is measured on the process's clock while the real Redis hangs.
    await new Promise((r) => setTimeout(r, QUOTA_TRUST_MS));
    // Past that, requests arriving while Redis hangs, all at once and then again: a later wave is not
    // queued behind the first one's time-out (each answers within one time-out, not one per wave).
    for (let wave = 0; wave < 2; wave++) {
      const results = await Promise.all(Object.entries(routes).map(async ([name, f]) => [name, await timed(f)] as const));
      for (const [name, t] of results) expectUnavailable(name, t);
    }

    resume();
    await waitFor(async () => (await routes.feed()).status === 200, { timeout: 5000, what: 'the feed to answer 200 again' });
    // The requests admitted on the process's count while Redis hung are counted, not lost.
    await waitFor(async () => (await counted()) >= before + admitted, { timeout: 5000, what: `alice's ${admitted} admitted requests to be counted` });
    for (const [name, f] of Object.entries(routes)) expect([name, (await f()).status]).toEqual([name, name === 'submission' ? 201 : name === 'click' ? 302 : 200]);
  }, 30_000);

  /**
   * Hold `send`'s request between its quota check (Redis) and its next Redis use: its first query on
   * articles waits on a lock this test holds while Redis is stopped. Returns the response and how
   * long after the lock's release it came.
   */
  async function inFlightWhileRedisHangs(send: () => Promise<TestResponse>, what: string): Promise<{ r: TestResponse; ms: number }> {
    const locker = new pg.Client({ connectionString: deps.env.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE articles IN ACCESS EXCLUSIVE MODE');
      const pending = send().then((r) => ({ r, at: Date.now() }));
      await waitFor(
        async () => {
          const { rows } = await locker.query(`SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'articles'::regclass AND NOT granted`);
          return rows[0].n > 0;
        },
        { what: `the ${what} to wait for the articles lock` },
      );
      stop();
      const released = Date.now();
      await locker.query('COMMIT');
      const { r, at } = await pending;
      return { r, ms: at - released };
    } finally {
      await locker.end();
      resume();
    }
  }

  it('503, not 500, for a request that passed its quota check before Redis stopped answering', async () => {
    // Held between its quota check and its click record (both Redis).
    expectUnavailable('click in flight', await inFlightWhileRedisHangs(routes.click, 'click request'));
    await waitFor(async () => (await routes.click()).status === 302, { timeout: 5000, what: 'the click route to answer 302 again' });
  }, 30_000);

  it('503 within the time-out for a submission that waits for its page title, the first such wait of the process, while Redis hangs', async () => {
    // The wait opens a new connection for the job's events (its first use in this process); a hung
    // Redis accepts it and never answers its ready check. Held between the quota check and that wait
    // (the duplicate check reads articles).
    const submit = () => http.post('/api/v1/news/post', { url: 'https://example.com/a/hung-title' }, alice.bearer);
    expectUnavailable('submission waiting for its title', await inFlightWhileRedisHangs(submit, 'submission'));
  }, 30_000);

  it('recovers when the hung Redis is replaced by a new one on its port (the connection closes and reconnects)', async () => {
    stop();
    expectUnavailable('feed', await timed(routes.feed));
    // The hung server dies (SIGKILL works on a stopped process) and a new one takes its port.
    const dead = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        try {
          process.kill(redis.pid, 0);
        } catch {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    process.kill(redis.pid, 'SIGKILL');
    stopped = false;
    await dead;
    redis = await startRedis({ port: redisPort, dir, persistent: false, log: () => undefined });
    await waitFor(async () => (await routes.feed()).status === 200, { timeout: 10_000, what: 'the feed to answer 200 on the new Redis' });
    for (const [name, f] of Object.entries(routes)) expect([name, (await f()).status]).toEqual([name, name === 'submission' ? 201 : name === 'click' ? 302 : 200]);
  }, 30_000);
});
