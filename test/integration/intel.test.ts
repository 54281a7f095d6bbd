/**
 * Market intelligence: what GET /intel/trending/ and GET /intel/report/ compute from the articles,
 * how they are cached and refreshed by the worker, their validation and the trending rate limit.
 */
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { reportSchema, trendingSchema } from '../../src/intel/schemas.js';
import { apiKeyOfTier, hoursAgo, insertArticle, siblingDeps, startTestWorkers } from '../support/intel.js';
import request from '../support/request.js';
import { quietFor } from '../support/wait.js';
import { useTestApp } from '../support/app.js';

const TTL_S = 3;
const app = useTestApp(undefined, { INTEL_CACHE_TTL_S: String(TTL_S), JOB_WAIT_MS: '5000', X402_PAY_TO: '0x5000000000000000000000000000000000000005' });
let workers: Worker[];
let builder: Record<string, string>;
const now = Date.now();
const seedHour = new Date(now).getUTCHours();
const clicksInWindow: number[] = [];
const votesInWindow: number[] = [];

async function seed(tags: string[], h: number, clicks: number, extra: Parameters<typeof insertArticle>[1] = {}) {
  clicksInWindow.push(clicks);
  votesInWindow.push(extra.votesCast ?? 0);
  return insertArticle(app.deps.db, { tags, publishedAt: hoursAgo(h, now), clicks, ...extra });
}

beforeAll(async () => {
  workers = startTestWorkers(app.deps, ['intel-report', 'intel-trending']);
  builder = await apiKeyOfTier(app.deps.db, 'builder');
  // 24 h window: defi 3 recent + 1 earlier, nft 1 recent + 3 earlier, l2 1 earlier.
  await seed(['defi'], 0.5, 30, { source: 'coindesk.com', votesCast: 4, hotScore: 9, headline: 'Top DeFi story' });
  await seed(['defi'], 2, 10, { source: 'coindesk.com', votesCast: 2, hotScore: 5 });
  await seed(['defi'], 5, 20, { source: 'theblock.co', hotScore: 3 });
  await seed(['defi'], 15, 0, { source: 'theblock.co', hotScore: 1 });
  await seed(['nft'], 3, 7, { source: 'decrypt.co', votesCast: 1, hotScore: 2 });
  await seed(['nft'], 13, 1, { source: 'decrypt.co' });
  await seed(['nft'], 14, 2, { source: 'decrypt.co' });
  await seed(['nft'], 20, 3, { source: 'decrypt.co', yapCount: 2 });
  await seed(['l2'], 18, 100, { source: 'l2beat.com', hotScore: 0.5 });
  // Outside the window, not approved, or sponsored: never counted.
  await insertArticle(app.deps.db, { tags: ['defi'], publishedAt: hoursAgo(30, now), clicks: 1 });
  await insertArticle(app.deps.db, { tags: ['defi'], status: 'submitted', publishedAt: null, createdAt: hoursAgo(1, now) });
  await insertArticle(app.deps.db, { tags: ['defi'], status: 'scheduled', publishedAt: null, createdAt: hoursAgo(2, now) });
  await insertArticle(app.deps.db, { tags: ['defi'], status: 'scheduled', publishedAt: null, createdAt: hoursAgo(3, now) });
  await insertArticle(app.deps.db, { tags: ['defi'], publishedAt: hoursAgo(1, now), clicks: 999, sponsored: { tier: 'express', ad_status: 'sponsored_approved', is_paid: true } });
  // Posting-signal history: articles published at this UTC hour of day did best.
  for (let d = 2; d <= 6; d++) await insertArticle(app.deps.db, { tags: ['history'], publishedAt: new Date(now - d * 24 * 3600_000), clicks: 500 });
  for (let d = 2; d <= 6; d++) await insertArticle(app.deps.db, { tags: ['history'], publishedAt: new Date(now - d * 24 * 3600_000 - 5 * 3600_000), clicks: 5 });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

describe('GET /intel/trending/', () => {
  it('tags with counts per half and velocity, most articles first, and the platform pulse', async () => {
    const r = await app.http.get('/api/v1/intel/trending/?hours=24&top_n=20');
    expect(r.status).toBe(200);
    expect(() => trendingSchema.parse(r.body)).not.toThrow();
    expect(r.body.parameters).toEqual({ hours: 24, top_n: 20 });
    expect(r.body.tags).toEqual([
      { tag: 'defi', article_count: 4, recent_count: 3, earlier_count: 1, velocity: 2 },
      { tag: 'nft', article_count: 4, recent_count: 1, earlier_count: 3, velocity: -0.6667 },
      { tag: 'l2', article_count: 1, recent_count: 0, earlier_count: 1, velocity: -1 },
    ]);
    expect(r.body.platform_pulse).toEqual({ articles_1h: 1, articles_6h: 4, articles_24h: 9 });
  });

  it('defaults to 24 hours and top 20; top_n limits the list; a short window sees only recent tags', async () => {
    const d = await app.http.get('/api/v1/intel/trending/');
    expect(d.body.parameters).toEqual({ hours: 24, top_n: 20 });
    const one = await app.http.get('/api/v1/intel/trending/?top_n=1');
    expect(one.body.tags.map((t: any) => t.tag)).toEqual(['defi']);
    const short = await app.http.get('/api/v1/intel/trending/?hours=4');
    expect(short.body.tags).toEqual([
      { tag: 'defi', article_count: 2, recent_count: 1, earlier_count: 1, velocity: 0 },
      { tag: 'nft', article_count: 1, recent_count: 0, earlier_count: 1, velocity: -1 },
    ]);
  });

  it('is served from the cache (X-Intel-Cache) until INTEL_CACHE_TTL_S passes', async () => {
    const a = await app.http.get('/api/v1/intel/trending/?hours=12&top_n=5');
    expect(a.headers.get('x-intel-cache')).toBe('miss');
    const b = await app.http.get('/api/v1/intel/trending/?hours=12&top_n=5');
    expect(b.headers.get('x-intel-cache')).toBe('hit');
    expect(b.body.generated_at).toBe(a.body.generated_at);
    const fresh = await insertArticle(app.deps.db, { tags: ['fresh'], publishedAt: new Date(), clicks: 1 });
    expect((await app.http.get('/api/v1/intel/trending/?hours=12&top_n=5')).body.tags.map((t: any) => t.tag)).not.toContain('fresh');
    // The behaviour under test is the cache's TTL on the wall clock (Redis expiry, not faked): wait it out.
    await quietFor(TTL_S * 1000 + 200);
    const c = await app.http.get('/api/v1/intel/trending/?hours=12&top_n=5');
    expect(c.body.tags.map((t: any) => t.tag)).toContain('fresh');
    await app.deps.db.deleteFrom('articles').where('id', '=', fresh).execute();
  });

  it('the scheduled run refreshes the default set and the sets clients asked for', async () => {
    await app.http.get('/api/v1/intel/trending/?hours=36&top_n=7');
    await app.deps.redis.del(`${app.deps.config.QUEUE_PREFIX}:intel:trending:h36-n7`, `${app.deps.config.QUEUE_PREFIX}:intel:trending:h24-n20`);
    const run = await app.deps.queue.enqueueAndWait('intel-trending', {}, 5000);
    expect(run.state === 'completed' && run.result.refreshed).toBeGreaterThanOrEqual(2);
    expect(await app.deps.redis.exists(`${app.deps.config.QUEUE_PREFIX}:intel:trending:h36-n7`, `${app.deps.config.QUEUE_PREFIX}:intel:trending:h24-n20`)).toBe(2);
  });

  it('validates hours (1-168) and top_n (1-50)', async () => {
    for (const q of ['hours=0', 'hours=169', 'hours=1.5', 'hours=x', 'top_n=0', 'top_n=51']) {
      const r = await app.http.get(`/api/v1/intel/trending/?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
    }
  });

  it('answers 503 intel_pending (with Retry-After) when the worker does not answer in time', async () => {
    const lonely = siblingDeps(app.deps, { QUEUE_PREFIX: `${app.deps.config.QUEUE_PREFIX}x`, JOB_WAIT_MS: 200 });
    const h = request(createApp(lonely));
    const r = await h.get('/api/v1/intel/trending/?hours=2');
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('intel_pending');
    expect(r.headers.get('retry-after')).toBe('2');
    await h.close();
    await lonely.close();
  });
});

describe('GET /intel/report/', () => {
  it('has every documented part, computed from the window', async () => {
    const r = await app.http.get('/api/v1/intel/report/', builder);
    expect(r.status).toBe(200);
    const report = reportSchema.parse(r.body);
    expect(report.parameters).toEqual({ hours: 24, topics: [], top_n: 10 });

    expect(report.trending_topics.map((t) => [t.tag, t.article_count, t.velocity])).toEqual([
      ['defi', 4, 2],
      ['nft', 4, -0.6667],
      ['l2', 1, -1],
    ]);
    const defi = report.trending_topics[0];
    expect(defi).toMatchObject({ clicks: 60, avg_clicks: 15, avg_hot_score: 4.5, max_hot_score: 9 });
    expect(defi.top_article).toMatchObject({ headline: 'Top DeFi story', clicks: 30, hot_score: 9 });

    const cp = report.content_performance;
    expect(cp.top_sources[0]).toEqual({ source: 'l2beat.com', article_count: 1, clicks: 100, avg_clicks: 100, votes: 0, yaps: 0 });
    expect(cp.top_sources.map((s) => s.source)).toEqual(['l2beat.com', 'coindesk.com', 'theblock.co', 'decrypt.co']);
    expect(cp.top_articles.map((a) => a.clicks)).toEqual([100, 30, 20, 10, 7, 3, 2, 1, 0]);
    const sorted = [...clicksInWindow].sort((a, b) => a - b);
    expect(cp.engagement).toEqual({
      articles: 9,
      clicks: { total: 173, avg: Math.round((173 / 9) * 100) / 100, median: sorted[4] },
      votes: { total: 7, avg: Math.round((7 / 9) * 100) / 100, median: 0 },
      yaps: { total: 2, avg: 0.22, median: 0 },
    });

    expect(report.platform_pulse).toMatchObject({
      articles_1h: 1,
      articles_6h: 4,
      articles_24h: 9,
      articles_in_window: 9,
      review_queue_depth: 1,
      social_queue_depth: 2,
    });
    expect(report.platform_pulse.avg_hot_score).toBeCloseTo((9 + 5 + 3 + 1 + 2 + 0.5) / 9, 3);

    expect(report.posting_signal).toBeGreaterThanOrEqual(0);
    expect(report.posting_signal).toBeLessThanOrEqual(1);
    expect(report.posting_signal_basis.hourly).toHaveLength(24);
    const best = report.posting_signal_basis.hourly.reduce((a, b) => (b.smoothed_avg_clicks > a.smoothed_avg_clicks ? b : a));
    expect(best.hour).toBe(seedHour);
    if (report.posting_signal_basis.hour_utc === seedHour) expect(report.posting_signal).toBe(1);
    // Sponsored posts never count.
    expect(cp.top_articles.map((a) => a.clicks)).not.toContain(999);
  });

  it('topics restrict trending topics and content performance; top_n limits every list', async () => {
    const r = await app.http.get('/api/v1/intel/report/?topics=NFT,nft&top_n=2&hours=48', builder);
    expect(r.status).toBe(200);
    expect(r.body.parameters).toEqual({ hours: 48, topics: ['nft'], top_n: 2 });
    expect(r.body.trending_topics.map((t: any) => t.tag)).toEqual(['nft']);
    expect(r.body.content_performance.top_articles).toHaveLength(2);
    expect(r.body.content_performance.top_articles.every((a: any) => a.tags.includes('nft'))).toBe(true);
    expect(r.body.content_performance.engagement.articles).toBe(4);
    expect(r.body.content_performance.top_sources).toEqual([{ source: 'decrypt.co', article_count: 4, clicks: 13, avg_clicks: 3.25, votes: 1, yaps: 2 }]);
  });

  it('a topic nobody wrote about gives empty lists, not an error', async () => {
    const r = await app.http.get('/api/v1/intel/report/?topics=nothing-here', builder);
    expect(r.status).toBe(200);
    expect(r.body.trending_topics).toEqual([]);
    expect(r.body.content_performance.engagement).toMatchObject({ articles: 0, clicks: { total: 0, avg: 0, median: 0 } });
  });

  it('is documented in the OpenAPI document with every sub-field', async () => {
    const doc = (await app.http.get('/api/v1/openapi.json')).body;
    const op = doc.paths['/api/v1/intel/report/'].get;
    expect(op.responses['402'].headers['PAYMENT-REQUIRED']).toBeDefined();
    expect(op.parameters.map((p: any) => p.name).sort()).toEqual(['hours', 'top_n', 'topics']);
    const schema = JSON.stringify(doc.components.schemas.IntelReport);
    for (const f of ['posting_signal', 'trending_topics', 'content_performance', 'platform_pulse', 'social_queue_depth', 'median', 'velocity', 'top_article'])
      expect(schema).toContain(f);
  });
});

describe('trending rate limit', () => {
  it('allows 30 requests per minute per IP, then 429 with Retry-After', async () => {
    // Fresh counters: a web process on its own prefix (no worker there, so the allowed ones are 503 intel_pending at once).
    const fresh = siblingDeps(app.deps, { QUEUE_PREFIX: `${app.deps.config.QUEUE_PREFIX}rl`, JOB_WAIT_MS: 0 });
    const h = request(createApp(fresh));
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await h.get('/api/v1/intel/trending/')).status);
    expect(statuses.slice(0, 30).every((s) => s !== 429)).toBe(true);
    const last = await h.get('/api/v1/intel/trending/');
    expect(statuses[30]).toBe(429);
    expect(last.body.error.code).toBe('rate_limited');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    await h.close();
    await fresh.close();
  });
});
