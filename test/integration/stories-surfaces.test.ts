import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import { hostOf, normalizeUrl } from '../../src/platform/url/normalize.js';
import { slugify } from '../../src/platform/url/slug.js';
import { checkProvenance } from '../../src/provenance/index.js';
import { buildCheckResult } from '../../src/provenance/rules/check.js';
import { assignStoryItem } from '../../src/stories/index.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';

let deps: TestDeps;
let relay: RunningRelay;
let http: ReturnType<typeof request>;
let workers: Worker[] = [];
let user: Session;
let editor: Session;

beforeAll(async () => {
  deps = await createTestDeps();
  relay = await startRelay(deps);
  http = request(createApp(deps));
  workers = startWorkers(
    { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer },
    { redisUrl: deps.config.REDIS_URL, prefix: deps.config.QUEUE_PREFIX, lockDurationMs: 10_000, concurrencyCap: 2, only: ['story-assign'] },
  );
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  user = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'surfacer' });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'surface_ed' });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await relay.close();
  await http.close();
  await deps.close();
});

async function submit(url: string, headline: string): Promise<number> {
  const r = await http.post('/api/v1/news/post', { url, headline }, user.bearer);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.article_id as number;
}

async function assigned(id: number): Promise<number> {
  const read = async () => (await deps.db.selectFrom('articles').select('story_id').where('id', '=', id).executeTakeFirstOrThrow()).story_id;
  await expect.poll(read, { timeout: 10_000, interval: 25 }).not.toBeNull();
  return (await read())!;
}

async function streamEventsFor(id: number): Promise<Record<string, unknown>[]> {
  await relayed(deps);
  const entries = (await deps.redis.xrange(deps.events.streamKey, '-', '+')) as [string, string[]][];
  return entries.map(([, f]) => JSON.parse(f[1]!) as Record<string, unknown>).filter((e) => e.id === id);
}

describe('story_id on lifecycle events', () => {
  it('news.submitted carries story_id null; news.approved after assignment carries the story, on the stream, the log and GET /events/', async () => {
    const id = await submit('https://surfaces.example/markets/etf-inflows-hit-record', 'Spot bitcoin ETF inflows hit a record $1.2B in one day');
    const storyId = await assigned(id);
    const approve = await http.post(`/api/v1/news/${id}/approve`, undefined, editor.bearer);
    expect(approve.status).toBe(200);
    const evs = await streamEventsFor(id);
    expect(evs.map((e) => e.type)).toEqual(['news.submitted', 'news.approved']);
    expect(evs[0]).toHaveProperty('story_id', null);
    expect(evs[1]).toMatchObject({ type: 'news.approved', id, story_id: storyId });
    const logged = await deps.db
      .selectFrom('event_log')
      .select(['type', 'payload'])
      .where('article_id', '=', id)
      .where('visibility', '!=', 'internal')
      .orderBy('event_id')
      .execute();
    // Webhook deliveries send the logged payload as their `data`, byte for byte.
    expect(logged.map((r) => (r.payload as { story_id?: unknown }).story_id)).toEqual([null, storyId]);
    const pulled = await http.get('/api/v1/events/?types=news.approved');
    expect(pulled.status).toBe(200);
    expect(pulled.body.results.find((e: { id: number }) => e.id === id)).toMatchObject({ story_id: storyId });
  });
});

const TAG = 'collapse-case';
const H = 3600_000;

async function insertArticle(headline: string, url: string, hoursAgo: number, votes = 0): Promise<number> {
  const n = normalizeUrl(url)!;
  const at = new Date(Date.now() - hoursAgo * H);
  const r = await deps.db
    .insertInto('articles')
    .values({ slug: slugify(headline), headline, url, normalized_url: n, source: hostOf(n), status: 'approved', created_at: at, published_at: at, tags: [TAG], vote_count: votes })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

describe('GET /news/?collapse=story', () => {
  const ids: Record<string, number> = {};
  let story: number;

  beforeAll(async () => {
    ids.a1 = await insertArticle('Hyperliquid suffers $4M exploit on JELLY token market', 'https://alpha.example/news/hyperliquid-jelly-exploit', 4, 5);
    ids.b = await insertArticle('Ethereum developers set Pectra mainnet upgrade date', 'https://beta.example/eth/pectra-date', 3);
    ids.a2 = await insertArticle('Hyperliquid hit by $4M exploit on JELLY token market', 'https://gamma.example/defi/hyperliquid-hit-by-exploit', 2);
    ids.c = await insertArticle('Solana validators vote on inflation cut proposal', 'https://delta.example/sol/inflation-vote', 1);
    for (const k of ['a1', 'b', 'a2'] as const) await assignStoryItem(deps.db, 'article', ids[k]!);
    const rows = await deps.db.selectFrom('articles').select(['id', 'story_id']).where('id', 'in', Object.values(ids)).execute();
    const storyOf = new Map(rows.map((r) => [r.id, r.story_id]));
    // Preconditions the assertions below rest on: the two exploit reports are one story, the others are not in it; c has no story.
    story = storyOf.get(ids.a1!)!;
    expect(storyOf.get(ids.a2!)).toBe(story);
    expect(storyOf.get(ids.b!)).not.toBe(story);
    expect(storyOf.get(ids.c!)).toBeNull();
  });

  it('one item per story, its best-ranked article in the page order, with the story size; unassigned articles stay', async () => {
    await relayed(deps);
    const plain = await http.get(`/api/v1/news/?tag=${TAG}&sort_type=new`);
    expect(plain.body.results.map((i: { id: number }) => i.id)).toEqual([ids.c, ids.a2, ids.b, ids.a1]);
    expect(plain.body.count).toBe(4);
    expect(plain.body.results[0]).not.toHaveProperty('story_size');
    const r = await http.get(`/api/v1/news/?tag=${TAG}&sort_type=new&collapse=story`);
    expect(r.status).toBe(200);
    // The uncollapsed page's count was cached first: the collapsed page counts its own items.
    expect(r.body.count).toBe(3);
    expect(r.body.results.map((i: { id: number }) => i.id)).toEqual([ids.c, ids.a2, ids.b]);
    expect(r.body.results[0]).toMatchObject({ story_id: null, story_size: null, story_sources: null });
    expect(r.body.results[1]).toMatchObject({ story_id: story, story_size: 2, story_sources: 2 });
    expect(r.body.results[2]).toMatchObject({ story_size: 1, story_sources: 1 });
    expect(r.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    const again = await http.get(`/api/v1/news/?tag=${TAG}&sort_type=new&collapse=story`, { 'if-none-match': r.headers.get('etag')! });
    expect(again.status).toBe(304);
    const top = await http.get(`/api/v1/news/?tag=${TAG}&sort_type=top&collapse=story`);
    expect(top.body.results[0]).toMatchObject({ id: ids.a1, story_size: 2 });
    expect(top.body.results.map((i: { id: number }) => i.id)).not.toContain(ids.a2);
    const page2 = await http.get(`/api/v1/news/?tag=${TAG}&sort_type=new&collapse=story&per_page=2&page=2`);
    expect(page2.body).toMatchObject({ count: 3, results: [{ id: ids.b }] });
    const past = await http.get(`/api/v1/news/?tag=${TAG}&sort_type=new&collapse=story&per_page=2&page=9`);
    expect(past.body).toMatchObject({ count: 3, results: [] });
  });

  it('syndication feeds collapse the same way', async () => {
    const r = await http.get(`/api/v1/news/feed.json?tag=${TAG}&sort_type=new&collapse=story`);
    expect(r.status).toBe(200);
    const items = (JSON.parse(r.text) as { items: { _squid: Record<string, unknown> }[] }).items;
    expect(items.map((i) => i._squid.article_id)).toEqual([ids.c, ids.a2, ids.b]);
    expect(items[1]!._squid).toMatchObject({ story_id: story, story_size: 2, story_sources: 2 });
    const rss = await http.get(`/api/v1/news/feed.rss?tag=${TAG}&collapse=story`);
    expect(rss.status).toBe(200);
    expect(rss.text.match(/<item>/g)).toHaveLength(3);
  });

  it('a bad collapse value is 400 validation_failed naming the parameter', async () => {
    for (const path of ['/api/v1/news/?collapse=stories', '/api/v1/news/?collapse=', '/api/v1/news/feed.atom?collapse=article', '/api/v1/news/?collapse=story&collapse=story']) {
      const r = await http.get(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error, path).toMatchObject({ code: 'validation_failed' });
      expect(JSON.stringify(r.body.error.details), path).toContain('collapse');
    }
  });
});

describe('provenance check with stories', () => {
  it('the result carries the best match story and story_id on each match; the verdict is the same as without stories', async () => {
    const now = new Date();
    const a1 = await deps.db.selectFrom('articles').select(['id', 'story_id']).where('url', '=', 'https://alpha.example/news/hyperliquid-jelly-exploit').executeTakeFirstOrThrow();
    const r = await checkProvenance(deps.db, { url: 'https://alpha.example/news/hyperliquid-jelly-exploit' }, { now, trgmThreshold: 0.3 });
    expect(r.matches).toMatchObject([{ news_id: a1.id, story_id: a1.story_id }]);
    const st = await deps.db.selectFrom('stories').selectAll().where('id', '=', a1.story_id!).executeTakeFirstOrThrow();
    expect(r.story).toEqual({ id: st.id, first_seen_at: st.first_seen_at.toISOString(), member_count: 2, source_count: 2 });
    expect(r.verdict).toBe(
      buildCheckResult({
        normalizedUrl: r.normalized_url,
        matches: [{ ...a1, headline: '', source: '', normalized_url: '', seen_at: new Date(r.matches[0]!.seen_at), similarity: 1, method: 'url' }],
        receipts: [],
        methods: ['url'],
        now,
      }).verdict,
    );
    const none = await checkProvenance(deps.db, { url: 'https://delta.example/sol/inflation-vote' }, { now, trgmThreshold: 0.3 });
    expect(none.matches).toMatchObject([{ story_id: null }]);
    expect(none.story).toBeNull();
    const unknown = await checkProvenance(deps.db, { url: 'https://nowhere.example/x' }, { now, trgmThreshold: 0.3 });
    expect(unknown).toMatchObject({ verdict: 'new', matches: [], story: null });
  });
});
