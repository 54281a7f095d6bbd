/**
 * The memory lane (src/platform/http/lane.ts): a GET without credentials or Origin for a feed
 * page or syndication feed this process holds is answered before the middleware chain. It must be
 * indistinguishable from the chain's answer: the same status, bytes and headers (validators, caching,
 * RateLimit, security headers, request id) as an app without the lane, 304s included; it must count
 * the daily quota and the request metrics; and everything it cannot answer exactly (credentials,
 * pages that need them, invalid queries, a caller near its quota, CORS, HEAD, a changed feed) must
 * reach the chain.
 */
import type Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { createApp } from '../../src/app.js';
import { invalidateFeedCache } from '../../src/feed/cache.js';
import { flushDailyQuota, utcDay } from '../../src/platform/http/rate-limit.js';
import type { RouteDef } from '../../src/platform/http/route.js';
import { insertApiKey, revokeApiKey } from '../../src/identity/api-key-queries.js';
import { dailyQuotaKey } from '../../src/platform/redis-keys.js';
import { allRoutes } from '../../src/routes.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request, { type TestResponse } from '../support/request.js';
import { waitFor } from '../support/wait.js';

const METRICS_TOKEN = 'lane-metrics-token-0123456789';
let deps: TestDeps;
let laned: ReturnType<typeof request>;
let chain: ReturnType<typeof request>;
let alice: Session;
let credentials: Record<string, Record<string, string>>;
/** Calls of the laned app's feed handlers: a request the lane answers never reaches them. */
let handled = 0;

/** The routes with their handlers counted. */
function counted(routes: RouteDef[]): RouteDef[] {
  return routes.map((r) =>
    r.lane
      ? {
          ...r,
          handler: (ctx, input) => {
            handled++;
            return r.handler(ctx, input);
          },
        }
      : r,
  );
}

/**
 * Headers that legitimately differ between two answers: the date, the connection, a fresh request
 * id, the quota left, and the seconds until the quota resets (a second may tick between the two:
 * compared apart, within one second).
 */
const VOLATILE = new Set(['date', 'connection', 'keep-alive', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset']);
const stable = (r: TestResponse) => Object.fromEntries([...r.headers].filter(([k]) => !VOLATILE.has(k)).sort(([a], [b]) => a.localeCompare(b)));

/** The same headers, the volatile ones aside; RateLimit-Reset on both or neither, within one second. */
function expectSameHeaders(a: TestResponse, b: TestResponse): void {
  expect(stable(a)).toEqual(stable(b));
  const [ra, rb] = [a.headers.get('ratelimit-reset'), b.headers.get('ratelimit-reset')];
  expect(ra === null).toBe(rb === null);
  if (ra !== null) expect(Math.abs(Number(ra) - Number(rb))).toBeLessThanOrEqual(1);
}

beforeAll(async () => {
  // The auth cache as in production (the suite's default of 0 re-reads its generation on every request, which leaves keys to the chain).
  deps = await createTestDeps({ METRICS_TOKEN, AUTH_CACHE_CHECK_MS: '200' });
  alice = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'alice' });
  for (let i = 0; i < 8; i++) {
    await deps.db
      .insertInto('articles')
      .values({
        slug: `lane-${i}`,
        headline: `Lane story ${i} & <b> "q" 🦑`,
        url: `https://lane${i % 2}.example/${i}`,
        normalized_url: `https://lane${i % 2}.example/${i}`,
        source: `lane${i % 2}.example`,
        status: i === 7 ? 'submitted' : 'approved',
        submitted_by: alice.userId,
        published_at: i === 7 ? null : new Date(Date.now() - i * 60_000),
        token_addresses: [],
        token_symbols: ['UNI'],
        tags: i % 2 ? ['defi'] : ['markets'],
        vote_count: i,
        votes_cast: i,
      })
      .execute();
  }
  // Alice votes for the top item of the page the credential tests read.
  const top = (await chain0()).body.results[0].id as number;
  await deps.db.insertInto('votes').values({ article_id: top, user_id: alice.userId, weight: 1 }).execute();
  const linked = generateApiKey();
  const unlinked = generateApiKey();
  await insertApiKey(deps.db, { id: generateKeyId(), ...linked, name: 'linked', email: null, useCase: null, userId: alice.userId, tier: 'free' });
  await insertApiKey(deps.db, { id: generateKeyId(), ...unlinked, name: 'unlinked', email: null, useCase: null, userId: null, tier: 'builder' });
  credentials = {
    bearer: alice.bearer,
    cookie: { cookie: `theme=dark; access_token=${alice.token}` },
    'linked key': { authorization: `Bearer ${linked.raw}` },
    'key without account': { authorization: `Bearer ${unlinked.raw}` },
  };
  laned = request(createApp(deps, counted(allRoutes(deps))) as Koa);
  chain = request(createApp(deps, allRoutes(deps), { memoryLane: false }) as Koa);
});

/** The page the credential tests read, from an app of its own (before the two under test exist). */
async function chain0(): Promise<TestResponse> {
  const app = request(createApp(deps, allRoutes(deps), { memoryLane: false }) as Koa);
  const r = await app.get('/api/v1/news/?per_page=4');
  await app.close();
  return r;
}

afterAll(async () => {
  await laned.close();
  await chain.close();
  await deps.close();
});

/** Requests sent to the laned app by fromLane. */
let laneRequests = 0;

/**
 * Requests `path` until the laned app serves it from memory; returns the lane's answer. The first
 * request fills the feed cache; a local copy is served only while this process checked the feed's
 * generation in Redis within the last 25 ms (src/feed/cache.ts), which the chain's requests do.
 */
async function fromLane(path: string, headers: Record<string, string> = {}): Promise<TestResponse> {
  // On a loaded machine the gap between two requests often exceeds the 25 ms: up to 60 tries.
  for (let i = 0; i < 60; i++) {
    const before = handled;
    laneRequests++;
    const r = await laned.get(path, headers);
    if (handled === before) return r;
  }
  throw new Error(`${path}: never answered by the lane`);
}

const PAGES = [
  '/api/v1/news/',
  '/api/v1/news/?sort_type=new&per_page=3',
  '/api/v1/news/?tag=defi&page=2&per_page=2',
  '/api/v1/news/?token_symbol=uni&sort_type=top&t=week',
  '/api/v1/news/feed.rss',
  '/api/v1/news/feed.atom?tag=markets',
  '/api/v1/news/feed.json?limit=2',
];

describe('the memory lane answers as the chain does', () => {
  it.each(PAGES)('%s: same status, bytes and headers; 304 on its validators', async (path) => {
    const lane = await fromLane(path);
    const viaChain = await chain.get(path);
    expect(lane.status).toBe(200);
    expect(lane.text).toBe(viaChain.text);
    expectSameHeaders(lane, viaChain);
    expect(lane.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(lane.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(lane.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');

    for (const cond of [{ 'if-none-match': lane.headers.get('etag')! }, { 'if-modified-since': lane.headers.get('last-modified')! }] as Record<string, string>[]) {
      const lane304 = await fromLane(path, cond);
      const chain304 = await chain.get(path, cond);
      expect(lane304.status).toBe(304);
      expect(lane304.text).toBe('');
      expectSameHeaders(lane304, chain304);
    }
    // A validator that no longer matches gets the page.
    const stale = await fromLane(path, { 'if-none-match': '"not-this-one"' });
    expect(stale.status).toBe(200);
    expect(stale.text).toBe(viaChain.text);
  });

  it.each(['bearer', 'cookie', 'linked key', 'key without account'])('a caller with %s credentials gets its own page as the chain gives it', async (kind) => {
    const headers = credentials[kind];
    const path = '/api/v1/news/?per_page=4';
    const lane = await fromLane(path, headers);
    const viaChain = await chain.get(path, headers);
    expect(lane.status).toBe(200);
    expect(lane.text).toBe(viaChain.text);
    expectSameHeaders(lane, viaChain);
    expect(lane.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    // Alice's vote on the top item shows in her overlay only.
    expect(lane.body.results[0].my_vote).toBe(kind === 'key without account' ? undefined : 1);
    const lane304 = await fromLane(path, { ...headers, 'if-none-match': lane.headers.get('etag')! });
    expect(lane304.status).toBe(304);
    expectSameHeaders(lane304, await chain.get(path, { ...headers, 'if-none-match': lane.headers.get('etag')! }));
  });

  it('echoes a valid X-Request-Id and replaces an invalid one, as the chain does', async () => {
    expect((await fromLane('/api/v1/news/', { 'x-request-id': 'poller-42.a:b' })).headers.get('x-request-id')).toBe('poller-42.a:b');
    expect((await fromLane('/api/v1/news/', { 'x-request-id': 'bad id!' })).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("counts the caller's daily quota and the request metrics", async () => {
    const path = '/api/v1/news/?sort_type=new';
    const left = (r: TestResponse) => Number(r.headers.get('ratelimit-remaining'));
    const a = await fromLane(path);
    const sentBefore = laneRequests;
    const b = await fromLane(path);
    // Every request since a was counted, the lane's last one included.
    expect(left(a) - left(b)).toBe(laneRequests - sentBefore);

    // Redis holds what the process counted (its lane's requests included) once the tallies are sent.
    await flushDailyQuota(deps.redis);
    const [key] = await deps.redis.keys(dailyQuotaKey(deps.config.QUEUE_PREFIX, 'ip:*', utcDay()));
    expect(Number(await deps.redis.get(key))).toBe(Number(b.headers.get('ratelimit-limit')) - left(b));

    const served = async () => {
      const text = (await laned.get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).text;
      return Number(/squid_http_requests_total\{method="GET",route="\/api\/v1\/news\/",status="200"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await served();
    const sentThen = laneRequests;
    await fromLane(path);
    expect(await served()).toBe(before + laneRequests - sentThen);
  });
});

describe('what the lane leaves to the chain', () => {
  it('a caller with credentials: a page this process has not served goes through the chain', async () => {
    await fromLane('/api/v1/news/', alice.bearer);
    const before = handled;
    await laned.get('/api/v1/news/?per_page=7', alice.bearer);
    expect(handled).toBe(before + 1);
  });

  it('credentials the auth cache cannot vouch for: malformed, unknown, revoked', async () => {
    const malformed = await laned.get('/api/v1/news/', { authorization: 'Token abc' });
    expect(malformed.body.error.code).toBe('authorization_malformed');
    const unknown = await laned.get('/api/v1/news/', { authorization: 'Bearer not-a-jwt' });
    expect(unknown.status).toBe(401);

    const key = generateApiKey();
    const id = generateKeyId();
    await insertApiKey(deps.db, { id, ...key, name: 'lane', email: null, useCase: null, userId: null, tier: 'free' });
    expect((await fromLane('/api/v1/news/', { authorization: `Bearer ${key.raw}` })).status).toBe(200);
    await revokeApiKey(deps.db, id);
    // The auth cache confirms its generation every 200 ms (src/identity/auth-cache.ts): no later than
    // that, lane or chain (the poll's time-out adds one request's own time to those 200 ms).
    const started = Date.now();
    const revoked = await waitFor(
      async () => {
        const r = await laned.get('/api/v1/news/', { authorization: `Bearer ${key.raw}` });
        return r.status === 401 ? r : undefined;
      },
      { timeout: 1000, what: 'the revoked key to be refused' },
    );
    expect(Date.now() - started).toBeLessThan(250 + 250);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe('api_key_revoked');
  });

  it('a page a signed-in caller had cached is still 401 without credentials', async () => {
    const signedIn = await laned.get('/api/v1/news/?status=submitted', alice.bearer);
    expect(signedIn.status).toBe(200);
    expect((await laned.get('/api/v1/news/?status=submitted', alice.bearer)).status).toBe(200);
    const anonymous = await laned.get('/api/v1/news/?status=submitted');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('auth_required');
  });

  it('an invalid query is 400 every time', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await laned.get('/api/v1/news/?per_page=0');
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
    }
  });

  it('a browser request from the trusted origin gets its CORS headers', async () => {
    await fromLane('/api/v1/news/');
    const r = await laned.get('/api/v1/news/', { origin: deps.config.TRUSTED_ORIGIN });
    expect(r.headers.get('access-control-allow-origin')).toBe(deps.config.TRUSTED_ORIGIN);
    expect(r.headers.get('vary')).toContain('Origin');
  });

  it('HEAD answers as the chain does', async () => {
    await fromLane('/api/v1/news/');
    const lane = await laned.request('HEAD', '/api/v1/news/');
    const viaChain = await chain.request('HEAD', '/api/v1/news/');
    expect(lane.status).toBe(200);
    expectSameHeaders(lane, viaChain);
  });

  it('a change to an article is served at once', async () => {
    const before = await fromLane('/api/v1/news/?sort_type=new');
    const top = before.body.results[0].id as number;
    await deps.db.updateTable('articles').set({ headline: 'Lane: edited' }).where('id', '=', top).execute();
    await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
    const after = await laned.get('/api/v1/news/?sort_type=new', { 'if-none-match': before.headers.get('etag')! });
    expect(after.status).toBe(200);
    expect(after.body.results[0].headline).toBe('Lane: edited');
  });
});

describe('a caller near its daily quota', () => {
  let small: TestDeps;
  let app: ReturnType<typeof request>;
  beforeAll(async () => {
    small = await createTestDeps({ ANON_DAILY_QUOTA: '3' });
    app = request(createApp(small) as Koa);
  });
  afterAll(async () => {
    await app.close();
    await small.close();
  });

  it('is counted exactly and refused at its limit, page in memory or not', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await app.get('/api/v1/news/')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
