/**
 * Mindshare: the asset-mindshare job computes, from seeded articles, tags, votes, yaps, readers and
 * stories, each asset's shares over 24 h, 7 d and 30 d; the asset page and the intel report serve them.
 */
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { reportSchema } from '../../src/intel/schemas.js';
import { sessionFor } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { apiKeyOfTier, hoursAgo, insertArticle, startTestWorkers } from '../support/intel.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let workers: Worker[];
const days = (d: number) => hoursAgo(24 * d);

async function tag(articleId: number, assetId: string, removed = false) {
  await deps.db
    .insertInto('article_assets')
    .values({ article_id: articleId, asset_id: assetId, salience: 0.8, source: removed ? 'editor' : 'worker', removed, updated_by: null })
    .execute();
}

async function story(headline: string, members: { kind: 'article' | 'wire'; id: number; at: Date }[]) {
  const times = members.map((m) => m.at.getTime());
  const s = await deps.db
    .insertInto('stories')
    .values({ headline, first_seen_at: new Date(Math.min(...times)), last_seen_at: new Date(Math.max(...times)), member_count: members.length, source_count: members.length })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const m of members) {
    await deps.db
      .insertInto('story_members')
      .values({ item_kind: m.kind, item_id: m.id, story_id: s.id, headline, url: null, source: `s${m.id}`, seen_at: m.at, features: JSON.stringify({}) })
      .execute();
  }
  return s.id;
}

const ids: Record<string, number> = {};

async function seed() {
  const users = await Promise.all([1, 2, 3].map((i) => sessionFor(deps.db, deps.config.JWT_SECRET, { username: `ms${i}` })));
  const [u1, u2, u3] = users.map((u) => u.userId);
  ids.a1 = await insertArticle(deps.db, { publishedAt: hoursAgo(2), headline: 'Bitcoin and Ether rally' });
  ids.a2 = await insertArticle(deps.db, { publishedAt: hoursAgo(3), headline: 'Bitcoin miners sell' });
  ids.a3 = await insertArticle(deps.db, { publishedAt: days(3), headline: 'Solana outage' });
  ids.a4 = await insertArticle(deps.db, { publishedAt: days(10), headline: 'Ethereum upgrade' });
  ids.a5 = await insertArticle(deps.db, { publishedAt: hoursAgo(1), headline: 'Bitcoin bakery opens' });
  ids.a6 = await insertArticle(deps.db, { publishedAt: hoursAgo(1), headline: 'Buy Bitcoin here', sponsored: { sponsor: 'x' } });
  ids.a7 = await insertArticle(deps.db, { status: 'submitted', headline: 'Bitcoin queued' });
  ids.a8 = await insertArticle(deps.db, { publishedAt: days(40), headline: 'Bitcoin long ago' });
  await Promise.all([
    tag(ids.a1, 'bitcoin'),
    tag(ids.a1, 'ethereum'),
    tag(ids.a2, 'bitcoin'),
    tag(ids.a3, 'solana'),
    tag(ids.a4, 'ethereum'),
    tag(ids.a5, 'bitcoin', true),
    tag(ids.a6, 'bitcoin'),
    tag(ids.a7, 'bitcoin'),
    tag(ids.a8, 'bitcoin'),
  ]);
  const vote = (article: number, user: number, at: Date) => deps.db.insertInto('votes').values({ article_id: article, user_id: user, weight: 1, created_at: at }).execute();
  await vote(ids.a1, u1, hoursAgo(1));
  await vote(ids.a1, u2, hoursAgo(1));
  await vote(ids.a6, u1, hoursAgo(1));
  await vote(ids.a5, u1, hoursAgo(1));
  await vote(ids.a4, u3, days(20));
  await deps.db
    .insertInto('yaps')
    .values({ article_id: ids.a2, user_id: u3, text: 'miners always sell', base_score: 0, created_at: hoursAgo(1) })
    .execute();
  await deps.db
    .insertInto('article_readers')
    .values({ article_id: ids.a3, user_id: u1, first_at: days(2) })
    .execute();
  const wire = await deps.db
    .insertInto('wire_items')
    .values({ normalized_url: 'https://wire.example/btc', url: 'https://wire.example/btc', title: 'Bitcoin rallies', source_name: 'Wire', source_url: 'https://wire.example/' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await deps.db.insertInto('wire_item_assets').values({ wire_item_id: wire.id, asset_id: 'bitcoin', salience: 0.9 }).execute();
  ids.s1 = await story('Bitcoin rallies', [
    { kind: 'article', id: ids.a1, at: hoursAgo(2) },
    { kind: 'article', id: ids.a2, at: hoursAgo(3) },
    { kind: 'wire', id: wire.id, at: hoursAgo(1) },
  ]);
  ids.s2 = await story('Solana outage', [{ kind: 'article', id: ids.a3, at: days(3) }]);
  ids.s3 = await story('Ethereum upgrade', [{ kind: 'article', id: ids.a4, at: days(10) }]);
  ids.s4 = await story('Bitcoin bakery', [{ kind: 'article', id: ids.a5, at: hoursAgo(1) }]);
}

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  workers = startTestWorkers(deps, ['asset-mindshare', 'intel-report']);
  await seed();
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await http.close();
  await deps.close();
});

const page = async (id: string) => (await http.get(`/api/v1/assets/${id}/`)).body;
const pick = (w: { stories: { count: number; share: number }; articles: { count: number; share: number }; engagement: { count: number; share: number } }) => [
  w.stories.count,
  w.stories.share,
  w.articles.count,
  w.articles.share,
  w.engagement.count,
  w.engagement.share,
];

describe('mindshare', () => {
  it('is null on the asset page before the job has run', async () => {
    expect((await page('bitcoin')).mindshare).toBeNull();
  });

  it('the job computes the shares of stories, articles and engagement per window', async () => {
    const out = await deps.queue.enqueueAndWait('asset-mindshare', {}, 15_000);
    expect(out.state).toBe('completed');
    const btc = (await page('bitcoin')).mindshare;
    const eth = (await page('ethereum')).mindshare;
    const sol = (await page('solana')).mindshare;
    // 24 h: articles a1 (btc, eth), a2 (btc); a5's tag was removed, a6 is sponsored, a7 not approved.
    // Engagement: 2 votes on a1 (btc, eth), 1 yap on a2 (btc). Stories: s1 (btc via a1, a2 and the wire item; eth via a1).
    expect(pick(btc.windows['24h'])).toEqual([1, 0.5, 2, 0.6667, 3, 0.6]);
    expect(pick(eth.windows['24h'])).toEqual([1, 0.5, 1, 0.3333, 2, 0.4]);
    expect(btc.windows['24h'].engagement).toMatchObject({ votes: 2, yaps: 1, clicks: 0, total: 5 });
    expect(btc.windows['24h'].top_stories).toEqual([expect.objectContaining({ id: ids.s1, headline: 'Bitcoin rallies', items: 3, member_count: 3 })]);
    expect(pick(sol.windows['24h'])).toEqual([0, 0, 0, 0, 0, 0]);
    // 7 d adds a3 (sol) with its reader and story s2.
    expect(pick(sol.windows['7d'])).toEqual([1, 0.3333, 1, 0.25, 1, 0.1667]);
    expect(sol.windows['7d'].engagement).toMatchObject({ clicks: 1 });
    expect(pick(btc.windows['7d'])).toEqual([1, 0.3333, 2, 0.5, 3, 0.5]);
    // 30 d adds a4 (eth) with its old vote and story s3; a8 (40 days) is outside every window.
    expect(pick(eth.windows['30d'])).toEqual([2, 0.5, 2, 0.4, 3, 0.4286]);
    expect(eth.windows['30d'].top_stories.map((s: { id: number }) => s.id)).toEqual([ids.s1, ids.s3]);
    expect(pick(btc.windows['30d'])).toEqual([1, 0.25, 2, 0.4, 3, 0.4286]);
    const to = new Date(btc.windows['30d'].to).getTime();
    expect(to - new Date(btc.windows['30d'].from).getTime()).toBe(30 * 86400_000);
    expect(btc.computed_at).toBe(btc.windows['24h'].to);
  });

  it('an asset without activity shows zero against the totals; an unknown asset is 404', async () => {
    const ada = (await page('cardano')).mindshare;
    expect(ada.windows['24h']).toMatchObject({ stories: { count: 0, total: 2, share: 0 }, articles: { count: 0, total: 3, share: 0 }, top_stories: [] });
    const missing = await http.get('/api/v1/assets/no-such-asset/');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'asset_not_found']);
  });

  it('the intel report carries the leading assets of each window', async () => {
    const r = await http.get('/api/v1/intel/report/?top_n=2', await apiKeyOfTier(deps.db, 'builder'));
    expect(r.status).toBe(200);
    const report = reportSchema.parse(r.body);
    const w = report.mindshare!.windows['30d'];
    expect(w.totals).toEqual({ stories: 4, articles: 5, engagement: 7 });
    expect(w.assets.map((a) => a.id)).toEqual(['ethereum', 'bitcoin']);
    expect(w.assets[0]).toMatchObject({ symbol: 'ETH', name: 'Ethereum', stories: { count: 2, share: 0.5 } });
    expect(report.mindshare!.windows['24h'].assets.map((a) => a.id)).toEqual(['bitcoin', 'ethereum']);
  });
});
