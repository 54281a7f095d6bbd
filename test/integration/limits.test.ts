import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { exactMargin, flushDailyQuota } from '../../src/platform/http/rate-limit.js';
import { createRedis } from '../../src/platform/redis.js';
import { defineRoute, type RouteDef } from '../../src/platform/http/route.js';
import { allRoutes } from '../../src/routes.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { sessionFor } from '../support/auth.js';
import request from '../support/request.js';
import { waitFor } from '../support/wait.js';

let deps: TestDeps;

const probes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/__probe/limited',
    operationId: 'probeLimited',
    summary: 'probe',
    tags: ['test'],
    rateLimit: { key: 'probe-limited', points: 3, durationS: 60 },
    responses: { 200: { description: 'ok' } },
    handler(ctx) {
      ctx.body = { ok: true };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/__probe/write',
    operationId: 'probeWrite',
    summary: 'probe',
    tags: ['test'],
    auth: 'user',
    body: z.object({ v: z.number() }),
    responses: { 200: { description: 'ok' } },
    handler(ctx, { body }) {
      ctx.body = { user: ctx.state.user!.id, v: body.v };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/__probe/editor',
    operationId: 'probeEditor',
    summary: 'probe',
    tags: ['test'],
    auth: 'editor',
    responses: { 200: { description: 'ok' } },
    handler(ctx) {
      ctx.body = { ok: true };
    },
  }),
];

beforeAll(async () => {
  deps = await createTestDeps({ ANON_DAILY_QUOTA: '6' });
});
afterAll(() => deps.close());

describe('per-IP route limits', () => {
  it('hold across two web app instances sharing Redis, with headers and Retry-After', async () => {
    const a = request(createApp(deps, [...allRoutes(deps), ...probes]));
    const b = request(createApp(deps, [...allRoutes(deps), ...probes]));
    const r1 = await a.get('/api/v1/__probe/limited');
    expect(r1.status).toBe(200);
    expect(r1.headers.get('ratelimit-limit')).toBe('3');
    expect(r1.headers.get('ratelimit-remaining')).toBe('2');
    expect((await b.get('/api/v1/__probe/limited')).status).toBe(200);
    expect((await a.get('/api/v1/__probe/limited')).status).toBe(200);
    const refused = await b.get('/api/v1/__probe/limited');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY is set', async () => {
    const plain = request(createApp(deps, [...allRoutes(deps), ...probes]));
    // Same real IP (127.0.0.1): spoofed forwarded-for values do not buy a new bucket.
    const r = await plain.get('/api/v1/__probe/limited', { 'x-forwarded-for': '203.0.113.9' });
    expect(r.status).toBe(429);

    const proxied = await createTestDeps({ TRUST_PROXY: 'true' });
    try {
      const p = request(createApp(proxied, [...allRoutes(proxied), ...probes]));
      for (let i = 0; i < 3; i++) expect((await p.get('/api/v1/__probe/limited', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(200);
      expect((await p.get('/api/v1/__probe/limited', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(429);
      // The last hop is the client our proxy saw: a client-supplied first hop cannot dodge the limit.
      expect((await p.get('/api/v1/__probe/limited', { 'x-forwarded-for': '10.9.9.9, 198.51.100.1' })).status).toBe(429);
      expect((await p.get('/api/v1/__probe/limited', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});

describe('daily quota counters', () => {
  it('expire about 32 days after the day starts (usage pages read them), and a lost expiry is set again', async () => {
    const s = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const http = request(createApp(deps, [...allRoutes(deps), ...probes]));
    const day = new Date().toISOString().slice(0, 10);
    const key = `${deps.config.QUEUE_PREFIX}:quota:user:${s.userId}:${day}`;
    const r = await http.get('/api/v1/__probe/editor', s.bearer); // 403 (not an editor), but metered
    expect(r.status).toBe(403);
    expect(await deps.redis.get(key)).toBe('1');
    const ttl = await deps.redis.ttl(key);
    expect(ttl).toBeGreaterThan(31 * 86_400);
    expect(ttl).toBeLessThanOrEqual(32 * 86_400);
    // The expiry went missing (say the EXPIRE after the day's first INCR failed): the 1,000th request restores it.
    await deps.redis.set(key, '998');
    expect(await deps.redis.ttl(key)).toBe(-1);
    await http.get('/api/v1/__probe/editor', s.bearer);
    // Far from the limit the count reaches Redis with the process's next flush, whose reply also
    // brings the process up to date with the count that was set behind its back.
    await until(async () => (await deps.redis.get(key)) === '999');
    expect(await deps.redis.ttl(key)).toBe(-1);
    // (The app shares deps.redis: the flush's reply was read before the GET's.)
    const thousandth = await http.get('/api/v1/__probe/editor', s.bearer);
    expect(thousandth.headers.get('ratelimit-remaining')).toBe(String(deps.config.SESSION_DAILY_QUOTA - 1000));
    await until(async () => (await deps.redis.ttl(key)) > 31 * 86_400);
  });

  it('far from the limit, a process counts requests itself and sends them in batches; the headers count every request', async () => {
    const s = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const http = request(createApp(deps, [...allRoutes(deps), ...probes]));
    const key = `${deps.config.QUEUE_PREFIX}:quota:user:${s.userId}:${new Date().toISOString().slice(0, 10)}`;
    const first = await http.get('/api/v1/__probe/editor', s.bearer);
    expect(first.headers.get('ratelimit-remaining')).toBe(String(deps.config.SESSION_DAILY_QUOTA - 1));
    const incr = vi.spyOn(deps.redis, 'incr');
    const incrby = vi.spyOn(deps.redis, 'incrby');
    try {
      const burst = await Promise.all(Array.from({ length: 40 }, () => http.get('/api/v1/__probe/editor', s.bearer)));
      const remaining = burst.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => b - a);
      // Each request counted once, none twice: the 40 remainders are exactly the 40 next ones.
      expect(remaining).toEqual(Array.from({ length: 40 }, (_, i) => deps.config.SESSION_DAILY_QUOTA - 2 - i));
      await until(async () => (await deps.redis.get(key)) === '41');
      // Not one command per request: at most one per flush (every 10 ms while counts wait), and the 40
      // requests arrive at once (a loaded machine spreads their handling over more flushes).
      expect(incr.mock.calls.length + incrby.mock.calls.length).toBeLessThan(40);
    } finally {
      incr.mockRestore();
      incrby.mockRestore();
    }
  });

  it('flushDailyQuota (a process shutting down) sends the gathered counts at once', async () => {
    const s = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const http = request(createApp(deps, [...allRoutes(deps), ...probes]));
    const key = `${deps.config.QUEUE_PREFIX}:quota:user:${s.userId}:${new Date().toISOString().slice(0, 10)}`;
    await http.get('/api/v1/__probe/editor', s.bearer);
    await Promise.all(Array.from({ length: 10 }, () => http.get('/api/v1/__probe/editor', s.bearer)));
    // Straight after the burst, not after the 10 ms flush: all 11 are in Redis once it returns.
    await flushDailyQuota(deps.redis);
    expect(await deps.redis.get(key)).toBe('11');
  });

  it('near the limit every request is counted in Redis, so two processes together admit exactly the limit', async () => {
    const after: (() => void)[] = [];
    const limit = 150;
    expect(limit - exactMargin(limit)).toBe(50);
    const small = await createTestDeps({ SESSION_DAILY_QUOTA: String(limit) });
    try {
      const s = await sessionFor(small.db, small.config.JWT_SECRET);
      // Two apps on two Redis connections: two tallies, as in two web processes.
      const other = { ...small, redis: createRedis(small.config.REDIS_URL, 'command', 'limits-test-b', { autoPipelining: true }) };
      after.push(() => other.redis.disconnect());
      const a = request(createApp(small, [...allRoutes(small), ...probes]));
      const b = request(createApp(other, [...allRoutes(other), ...probes]));
      const statuses: number[] = [];
      for (let i = 0; i < limit + 10; i++) statuses.push((await (i % 2 ? a : b).get('/api/v1/__probe/editor', s.bearer)).status);
      expect(statuses.filter((x) => x === 403)).toHaveLength(limit);
      expect(statuses.slice(limit)).toEqual(Array.from({ length: 10 }, () => 429));
    } finally {
      for (const f of after.splice(0)) f();
      await small.close();
    }
  });
});

/** Poll `check` every 10 ms until it holds (at most `tries` times). */
async function until(check: () => Promise<boolean>, tries = 200): Promise<void> {
  await waitFor(check, { timeout: tries * 10 }).catch(() => undefined);
  expect(await check()).toBe(true);
}

describe('cross-site-request protection', () => {
  let http: ReturnType<typeof request>;
  beforeAll(() => {
    http = request(createApp(deps, [...allRoutes(deps), ...probes]));
  });

  it('cookie-authenticated POST needs Origin = TRUSTED_ORIGIN (or a same-origin Referer)', async () => {
    const s = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const cookie = { cookie: `access_token=${s.token}` };
    const none = await http.post('/api/v1/__probe/write', { v: 1 }, cookie);
    expect(none.status).toBe(403);
    expect(none.body.error.code).toBe('csrf_origin_mismatch');
    const evil = await http.post('/api/v1/__probe/write', { v: 1 }, { ...cookie, origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    const lookalike = await http.post('/api/v1/__probe/write', { v: 1 }, { ...cookie, origin: 'http://127.0.0.1:8000.evil.example' });
    expect(lookalike.status).toBe(403);
    const good = await http.post('/api/v1/__probe/write', { v: 1 }, { ...cookie, origin: deps.config.TRUSTED_ORIGIN });
    expect(good.status).toBe(200);
    const viaReferer = await http.post('/api/v1/__probe/write', { v: 2 }, { ...cookie, referer: `${deps.config.TRUSTED_ORIGIN}/submit` });
    expect(viaReferer.status).toBe(200);
  });

  it('Bearer-authenticated POST needs no Origin', async () => {
    const s = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const r = await http.post('/api/v1/__probe/write', { v: 3 }, s.bearer);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ user: s.userId, v: 3 });
  });

  it('roles come from the database: a token claiming editor is not enough', async () => {
    const s = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: [] });
    const { signAccessToken } = await import('../../src/identity/tokens.js');
    const forged = await signAccessToken(deps.config.JWT_SECRET, { userId: s.userId, address: s.address, roles: ['editor'] });
    const r = await http.get('/api/v1/__probe/editor', { authorization: `Bearer ${forged}` });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('editor_required');
    const editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'] });
    expect((await http.get('/api/v1/__probe/editor', editor.bearer)).status).toBe(200);
  });
});
