import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import type { Config } from '../../src/platform/config.js';
import { slugify } from '../../src/platform/url/slug.js';
import { hostOf, normalizeUrl } from '../../src/platform/url/normalize.js';
import { addSource, ingestItems } from '../../src/wire/queries.js';
import { startWorkers } from '../../src/bin/worker-runtime.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { useTestApp } from '../support/app.js';

let relay: RunningRelay;

const app = useTestApp({ editor: { roles: ['editor'], username: 'desk_editor' }, user: { username: 'plain_user' } });
let workers: Worker[] = [];
const item: Record<string, number> = {};

async function curated(headline: string, url: string, status: ArticleStatus = 'approved') {
  const n = normalizeUrl(url)!;
  return app.deps.db
    .insertInto('articles')
    .values({
      slug: slugify(headline),
      headline,
      url,
      normalized_url: n,
      source: hostOf(n),
      status,
      created_at: new Date(Date.now() - 3600_000),
      published_at: status === 'approved' ? new Date() : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

async function wire(sourceId: number, sourceName: string, entries: [string, string, string][]) {
  const { created } = await ingestItems(
    app.deps.db,
    { id: sourceId, name: sourceName, url: `https://${sourceName.toLowerCase().replace(/\s/g, '')}.example/feed` },
    entries.map(([, url, title]) => ({ normalizedUrl: normalizeUrl(url)!, url, title, summary: null, guid: null, publishedAt: null })),
    new Date(),
  );
  entries.forEach(([key], i) => (item[key] = created[i].id));
}

async function promoteRun() {
  const r = await app.deps.queue.enqueueAndWait('wire-promote', {}, 20_000);
  if (r.state !== 'completed') throw new Error('wire-promote did not finish');
  return r.result;
}

async function streamEvents(type: string) {
  await relayed(app.deps);
  const entries = (await app.deps.redis.xrange(app.deps.events.streamKey, '-', '+')) as [string, string[]][];
  return entries.map(([, f]) => JSON.parse(f[1])).filter((e) => e.type === type);
}

beforeAll(async () => {
  relay = await startRelay(app.deps);
  const config = { ...app.deps.config, WIRE_PROMOTE_MIN_SCORE: 0.6, WIRE_PROMOTE_MAX_PER_RUN: 2 } as Config;
  workers = startWorkers(
    { config, db: app.deps.db, redis: app.deps.redis, events: app.deps.events, log: app.deps.log, enqueue: app.deps.queue.enqueuer },
    { redisUrl: app.deps.config.REDIS_URL, prefix: app.deps.config.QUEUE_PREFIX, lockDurationMs: 10_000, concurrencyCap: 2, only: ['wire-promote'] },
  );

  await curated('Binance CEO Changpeng Zhao pleads guilty, steps down', 'https://news.example/cz');
  await curated('Queued story already waiting for an editor', 'https://queue.example/already', 'submitted');
  const major = await addSource(app.deps.db, { name: 'Major Wire', url: 'https://major.example/feed', weight: 1 });
  const minor = await addSource(app.deps.db, { name: 'Minor Wire', url: 'https://minor.example/feed', weight: 0.5 });
  await wire(major.id, 'Major Wire', [
    ['czReworded', 'https://other.example/cz-steps-down', 'Changpeng Zhao steps down as Binance CEO after pleading guilty'],
    ['polygonA', 'https://a.example/polygon-zkevm', 'Polygon unveils zkEVM mainnet beta'],
    ['tether', 'https://a.example/tether-profit', 'Tether reports $1 billion profit in first quarter'],
    ['hongKong', 'https://a.example/hk-etf', 'Hong Kong approves spot bitcoin and ether ETFs'],
    ['queued', 'https://queue.example/already?utm_source=wire', 'Some wire title for a queued URL'],
  ]);
  await wire(minor.id, 'Minor Wire', [
    ['polygonB', 'https://b.example/polygon', 'Polygon launches zkEVM mainnet beta'],
    ['aave', 'https://b.example/aave', 'Aave deploys v3 on Base'],
  ]);
});

afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
});

describe('wire-promote job', () => {
  it('scores every new item by novelty x source weight and promotes the best, one per story, at most N per run', async () => {
    const before = (await streamEvents('news.tsunami_promoted')).length;
    const r = await promoteRun();
    expect(r.scored).toBe(7);
    const scored = await app.deps.db.selectFrom('wire_items').select(['id', 'novelty', 'score']).execute();
    const byId = new Map(scored.map((s) => [s.id, s]));
    expect(byId.get(item.queued)!.novelty).toBe(0); // its URL is already in the editors' queue
    expect(byId.get(item.czReworded)!.novelty).toBeLessThan(0.3); // the same story is curated already
    expect(byId.get(item.polygonA)!.score).toBe(1);
    expect(byId.get(item.aave)!.score).toBeCloseTo(0.5, 5); // novel, but a weight-0.5 source: below 0.6
    // Two promotions (the cap); Polygon told twice counts once; the most novel, best-weighted first.
    expect(r.promoted).toHaveLength(2);
    const promotedItems = r.promoted.map((p: any) => p.wire_item_id);
    expect(promotedItems.filter((id: number) => id === item.polygonA || id === item.polygonB)).toHaveLength(1);
    const articles = await app.deps.db.selectFrom('articles').selectAll().where('origin', '=', 'tsunami').execute();
    expect(articles).toHaveLength(2);
    for (const a of articles) expect(a).toMatchObject({ status: 'submitted', origin: 'tsunami', headline_source: 'wire', submitted_by: null });
    const events = (await streamEvents('news.tsunami_promoted')).slice(before);
    expect(events.map((e) => e.id).sort()).toEqual(articles.map((a) => a.id).sort());
    expect(events[0]).toMatchObject({ status: 'submitted', origin: 'tsunami', sponsored: null });
    const submitted = await streamEvents('news.submitted');
    expect(submitted.filter((e) => articles.some((a) => a.id === e.id))).toHaveLength(2);
  });

  it('the next run promotes what was left over, but not a story the queue now covers', async () => {
    const r = await promoteRun();
    expect(r.scored).toBe(0);
    const all = await app.deps.db.selectFrom('wire_items').select(['id', 'promoted_article_id']).execute();
    const promoted = new Set(all.filter((x) => x.promoted_article_id !== null).map((x) => x.id));
    expect(promoted.has(item.tether)).toBe(true);
    expect(promoted.has(item.hongKong)).toBe(true);
    expect(promoted.has(item.polygonA) && promoted.has(item.polygonB)).toBe(false);
    expect(promoted.has(item.czReworded)).toBe(false);
    expect(promoted.has(item.aave)).toBe(false);
    const third = await promoteRun();
    expect(third.promoted).toEqual([]);
  });
});

describe('editor endpoints', () => {
  it('GET /wire/items needs an editor', async () => {
    expect((await app.http.get('/api/v1/wire/items')).status).toBe(401);
    const asUser = await app.http.get('/api/v1/wire/items', app.user.bearer);
    expect(asUser.status).toBe(403);
    const r = await app.http.get('/api/v1/wire/items?state=promoted&limit=10', app.editor.bearer);
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBe(3);
    expect(r.body.results[0]).toMatchObject({ source_name: expect.any(String), receipt_count: 1, promoted_article_id: expect.any(Number) });
    const page = await app.http.get('/api/v1/wire/items?limit=2', app.editor.bearer);
    expect(page.body.results).toHaveLength(2);
    const next = await app.http.get(`/api/v1/wire/items?limit=2&before_id=${page.body.next_before_id}`, app.editor.bearer);
    expect(next.body.results[0].id).toBeLessThan(page.body.results[1].id + 0.5);
    expect((await app.http.get('/api/v1/wire/items?limit=0', app.editor.bearer)).status).toBe(400);
    expect((await app.http.get('/api/v1/wire/items?state=weird', app.editor.bearer)).status).toBe(400);
  });

  it('POST /wire/items/:id/promote: an editor promotes an item by hand, once, with an optional headline', async () => {
    const url = `/api/v1/wire/items/${item.aave}/promote`;
    expect((await app.http.post(url, {})).status).toBe(401);
    expect((await app.http.post(url, {}, app.user.bearer)).status).toBe(403);
    const before = (await streamEvents('news.tsunami_promoted')).length;
    const r = await app.http.post(url, { headline: 'Aave v3 goes live on Base' }, app.editor.bearer);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ wire_item_id: item.aave, status: 'submitted', origin: 'tsunami', headline: 'Aave v3 goes live on Base' });
    const a = await app.deps.db.selectFrom('articles').selectAll().where('id', '=', r.body.article_id).executeTakeFirstOrThrow();
    expect(a).toMatchObject({ headline_source: 'editor', source: 'Minor Wire', normalized_url: 'https://b.example/aave', status: 'submitted' });
    const w = await app.deps.db.selectFrom('wire_items').select(['promoted_by', 'promoted_article_id']).where('id', '=', item.aave).executeTakeFirstOrThrow();
    expect(w).toEqual({ promoted_by: app.editor.userId, promoted_article_id: a.id });
    expect((await streamEvents('news.tsunami_promoted')).length).toBe(before + 1);

    const again = await app.http.post(url, {}, app.editor.bearer);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'wire_item_already_promoted', details: { article_id: a.id } });

    // The receipts page of the new article shows the editor promotion.
    const receipts = await app.http.get(`/api/v1/provenance/receipts/${a.id}`, app.editor.bearer);
    expect(receipts.body.ingest_receipt).toMatchObject({ wire_item_id: item.aave, promoted_by: 'editor', source_name: 'Minor Wire' });
  });

  it('refuses an item whose URL is already an article, unknown ids and bad input', async () => {
    const dup = await app.http.post(`/api/v1/wire/items/${item.queued}/promote`, {}, app.editor.bearer);
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('wire_item_duplicate');
    const unknown = await app.http.post('/api/v1/wire/items/987654/promote', {}, app.editor.bearer);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('wire_item_not_found');
    expect((await app.http.post('/api/v1/wire/items/abc/promote', {}, app.editor.bearer)).status).toBe(400);
    const badBody = await app.http.post(`/api/v1/wire/items/${item.czReworded}/promote`, { headline: '' }, app.editor.bearer);
    expect(badBody.status).toBe(400);
    const extra = await app.http.post(`/api/v1/wire/items/${item.czReworded}/promote`, { status: 'approved' }, app.editor.bearer);
    expect(extra.status).toBe(400);
  });
});
