/**
 * The page-title job tags the new headline itself (jobs/page-title.ts, src/assets headlineTagging):
 * its article.edited event (reason page_title) names the assets, so the relay enqueues no asset-tag
 * run for it; and what it writes (tag rows, token fields, the worker's fill record) is what writing
 * the headline and then re-tagging it (the asset-tag job's tagArticle) writes, whatever editors,
 * submitters and earlier fills left on the article.
 */
import type { Worker } from 'bullmq';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPageTitle } from '../../jobs/page-title.js';
import { sharedRegistry, tagArticle } from '../../src/assets/index.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { startPageServer, type PageServer } from '../support/news-page-server.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { startTestWorkers } from '../support/workers.js';

let deps: TestDeps;
let relay: RunningRelay;
let pages: PageServer;
let workers: Worker[];
let jobDeps: Parameters<typeof runPageTitle>[1];

beforeAll(async () => {
  deps = await createTestDeps({ OUTBOUND_ALLOW_PRIVATE: 'true' });
  relay = await startRelay(deps);
  pages = await startPageServer();
  workers = startTestWorkers(deps, ['page-title']);
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  jobDeps = { config: deps.config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer };
});
afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
  await pages.close();
  await deps.close();
});

let n = 0;
interface Start {
  token_symbols?: string[];
  token_addresses?: string[];
  tags?: { asset_id: string; salience: number; source: 'worker' | 'editor'; removed?: boolean }[];
  fill?: { token_symbols: string[]; token_addresses: string[] };
}

/** A submission still on its provisional headline (inserted without an event, so no run is pending for it), in the state `s`. */
async function provisional(title: string, s: Start = {}): Promise<number> {
  const url = `${pages.base}/article?title=${encodeURIComponent(title)}&n=${++n}`;
  const r = await sql<{ id: number }>`
    INSERT INTO articles (slug, headline, headline_source, url, normalized_url, source, status, token_symbols, token_addresses)
    VALUES (${`pt-${n}`}, ${`provisional ${n}`}, 'provisional', ${url}, ${url}, '127.0.0.1', 'submitted', ${s.token_symbols ?? []}::text[], ${s.token_addresses ?? []}::text[])
    RETURNING id`.execute(deps.db);
  const id = r.rows[0].id;
  for (const t of s.tags ?? []) {
    await deps.db
      .insertInto('article_assets')
      .values({ article_id: id, asset_id: t.asset_id, salience: t.salience, is_primary: false, source: t.source, removed: t.removed ?? false })
      .execute();
  }
  if (s.fill)
    await deps.db
      .insertInto('article_asset_fills')
      .values({ article_id: id, ...s.fill })
      .execute();
  return id;
}

async function pageTitleEvent(id: number) {
  const row = await deps.db
    .selectFrom('event_log')
    .select('payload')
    .where('article_id', '=', id)
    .where('type', '=', 'article.edited')
    .orderBy('event_id', 'desc')
    .executeTakeFirstOrThrow();
  return (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<string, unknown>;
}

/** Asset-tag runs the relay enqueued for an article. */
async function assetTagRuns(id: number): Promise<number> {
  await relayed(deps);
  const jobs = await deps.queue.queue('asset-tag').getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed', 'failed']);
  return jobs.filter((j) => j.data.kind === 'article' && j.data.id === id).length;
}

/** What an article holds after a page title: headline, token fields, tag rows and the worker's fill record. */
async function state(id: number) {
  const article = await deps.db.selectFrom('articles').select(['headline', 'headline_source', 'token_symbols', 'token_addresses']).where('id', '=', id).executeTakeFirstOrThrow();
  const tags = await deps.db
    .selectFrom('article_assets')
    .select(['asset_id', 'salience', 'is_primary', 'source', 'removed'])
    .where('article_id', '=', id)
    .orderBy('asset_id')
    .execute();
  const fill = await deps.db.selectFrom('article_asset_fills').select(['token_symbols', 'token_addresses']).where('article_id', '=', id).executeTakeFirst();
  return { article, tags, fill: fill ?? null };
}

describe('the page-title job tags the new headline', () => {
  it("its article.edited event (reason page_title) carries the new headline's assets, and the relay enqueues no asset-tag run for it", async () => {
    const id = await provisional("BlackRock's Bitcoin ETF draws $ETH traders as Coinbase lists stETH");
    const done = await deps.queue.enqueueAndWait('page-title', { article_id: id }, 10_000);
    expect(done).toMatchObject({ state: 'completed', result: { status: 'ok', updated: true } });
    const event = await pageTitleEvent(id);
    expect(event).toMatchObject({ reason: 'page_title' });
    expect((event.assets as string[]).slice().sort()).toEqual(['bitcoin', 'ethereum', 'lido-staked-ether']);
    const { tags, article } = await state(id);
    expect(tags.map((t) => t.asset_id)).toEqual(['bitcoin', 'ethereum', 'lido-staked-ether']);
    expect(article.token_symbols.slice().sort()).toEqual(['BTC', 'ETH', 'STETH']);
    expect(await assetTagRuns(id)).toBe(0);

    // The same page title written without the tags: its event names none, and the relay enqueues the run.
    const plain = await provisional("BlackRock's Bitcoin ETF draws $ETH traders as Coinbase lists stETH");
    expect(await runPageTitle({ article_id: plain }, jobDeps, false)).toMatchObject({ updated: true });
    expect(await pageTitleEvent(plain)).not.toHaveProperty('assets');
    expect(await assetTagRuns(plain)).toBe(1);
  });

  it('writes what the headline written and then re-tagged writes: editors’ tags and removals, submitters’ fields and earlier fills as a re-tag keeps them', async () => {
    const cases: [string, Start][] = [
      ['Bitcoin and Ether rally as ETF flows return', {}],
      ['Bitcoin and Ether rally as ETF flows return', { token_symbols: ['DOGE'] }],
      [
        'Bitcoin and Ether rally as ETF flows return',
        { tags: [{ asset_id: 'dogecoin', salience: 0.4, source: 'worker' }], token_symbols: ['DOGE'], fill: { token_symbols: ['DOGE'], token_addresses: [] } },
      ],
      ['Bitcoin and Ether rally as ETF flows return', { token_symbols: ['BTC'], fill: { token_symbols: ['SOL'], token_addresses: [] } }],
      [
        'Bitcoin and Ether rally as ETF flows return',
        {
          tags: [
            { asset_id: 'bitcoin', salience: 0.9, source: 'editor', removed: true },
            { asset_id: 'solana', salience: 0.5, source: 'editor' },
          ],
        },
      ],
      ['Circle mints more USDC on Ethereum', { tags: [{ asset_id: 'ethereum', salience: 0.2, source: 'editor' }] }],
      ['Circle mints more USDC on Ethereum', { token_symbols: ['USDC', 'ETH'] }],
      [
        'Apple and Microsoft report earnings',
        { tags: [{ asset_id: 'xrp', salience: 0.6, source: 'worker' }], token_symbols: ['XRP'], fill: { token_symbols: ['XRP'], token_addresses: [] } },
      ],
    ];
    for (const [title, start] of cases) {
      const tagged = await provisional(title, start);
      const twin = await provisional(title, start);
      expect(await runPageTitle({ article_id: tagged }, jobDeps, true)).toMatchObject({ updated: true });
      expect(await runPageTitle({ article_id: twin }, jobDeps, false)).toMatchObject({ updated: true });
      const retag = await tagArticle(deps.db, sharedRegistry, twin);
      const [a, b] = [await state(tagged), await state(twin)];
      expect({ title, start, ...a }).toEqual({ title, start, ...b });
      expect((await pageTitleEvent(tagged)).assets).toEqual(retag.assets);
    }
    // Empty fields, never filled: filled from the tags, and remembered as the worker's fill.
    const empty = await provisional('Bitcoin and Ether rally as ETF flows return');
    await runPageTitle({ article_id: empty }, jobDeps, true);
    const filled = await state(empty);
    expect(filled.article.token_symbols).toEqual(['BTC', 'ETH']);
    expect(filled.fill).toEqual({ token_symbols: ['BTC', 'ETH'], token_addresses: [] });
  });
});
