import { beforeAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import { useTestApp } from '../support/app.js';
import { insertSubmitted } from '../support/articles.js';

const app = useTestApp({ editor: { roles: ['editor'], username: 'ed_itor' }, reader: { username: 'reader_one' } }, { TRUST_PROXY: 'true' });
let ipSeq = 0;
const newIp = () => ({ 'x-forwarded-for': `203.0.113.${++ipSeq}` });
const D = 86_400_000;
const ids: Record<string, number> = {};

async function article(key: string, o: { headline: string; url: string; ageDays: number; status?: ArticleStatus; sponsored?: boolean; origin?: string; tags?: string[] }) {
  const t = new Date(Date.now() - o.ageDays * D);
  const status = o.status ?? 'approved';
  ids[key] = await insertSubmitted(app.deps.db, { ...o, status, createdAt: new Date(t.getTime() - 3600_000), publishedAt: status === 'approved' ? t : null });
  return ids[key];
}

async function yap(articleId: number, userId: number, text: string, tags: string[], votes: number, base: -1 | 0 | 1 = 1) {
  return app.deps.db
    .insertInto('yaps')
    .values({ article_id: articleId, user_id: userId, text, tags, base_score: base, vote_score: votes })
    .returning('id')
    .executeTakeFirstOrThrow();
}

beforeAll(async () => {
  await article('etf', { headline: 'SEC approves spot Ethereum ETFs after long wait', url: 'https://news.example/eth-etf', ageDays: 2, tags: ['etf', 'ethereum'] });
  await article('etfOld', { headline: 'Ethereum ETF filings pile up at the SEC', url: 'https://news.example/eth-etf-old', ageDays: 60 });
  await article('sol', { headline: 'Solana network suffers five-hour outage', url: 'https://news.example/sol', ageDays: 1 });
  await article('ad', { headline: 'Ethereum ETF yield vault: deposit now', url: 'https://ads.example/eth', ageDays: 1, sponsored: true });
  await article('pending', { headline: 'Ethereum ETF inflows hit a record', url: 'https://news.example/pending', ageDays: 1, status: 'submitted' });
  await article('wirePending', { headline: 'Ethereum ETF volumes double', url: 'https://wire.example/eth', ageDays: 1, status: 'submitted', origin: 'tsunami' });
  await article('killed', { headline: 'Ethereum ETF rumor debunked', url: 'https://news.example/killed', ageDays: 1, status: 'killed' });
});

describe('GET /provenance/search', () => {
  it('finds curated articles by full text, best first, excluding sponsored posts, the queue and killed ones', async () => {
    const r = await app.http.get('/api/v1/provenance/search?q=ethereum%20etf', newIp());
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.news_id)).toEqual([ids.etf]);
    expect(r.body).toMatchObject({ count: 1, q: 'ethereum etf', days: 30, limit: 20 });
    expect(r.body.results[0]).toMatchObject({
      headline: 'SEC approves spot Ethereum ETFs after long wait',
      canonical_url: 'https://news.example/eth-etf',
      source: 'news.example',
      tags: ['etf', 'ethereum'],
    });
    expect(r.body.results[0].relevance).toBeGreaterThan(0);
  });

  it('the window follows `days`', async () => {
    const r = await app.http.get('/api/v1/provenance/search?q=ethereum%20etf&days=90', newIp());
    expect(r.body.results.map((x: any) => x.news_id).sort()).toEqual([ids.etf, ids.etfOld].sort());
    const one = await app.http.get('/api/v1/provenance/search?q=ethereum%20etf&days=90&limit=1', newIp());
    expect(one.body.results).toHaveLength(1);
  });

  it('forgives a typo through trigram word similarity', async () => {
    const r = await app.http.get('/api/v1/provenance/search?q=solanna', newIp());
    expect(r.body.results.map((x: any) => x.news_id)).toContain(ids.sol);
  });

  it('no match is an empty list, not an error', async () => {
    const r = await app.http.get('/api/v1/provenance/search?q=zzqx', newIp());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ results: [], count: 0 });
  });

  it.each([
    ['missing q', ''],
    ['empty q', 'q='],
    ['days 0', 'q=eth&days=0'],
    ['days 366', 'q=eth&days=366'],
    ['days not an integer', 'q=eth&days=1.5'],
    ['limit 0', 'q=eth&limit=0'],
    ['limit 51', 'q=eth&limit=51'],
    ['limit not a number', 'q=eth&limit=ten'],
    ['an unknown parameter', 'q=eth&sort=new'],
  ])('%s -> 400 validation_failed', async (_label, qs) => {
    const r = await app.http.get(`/api/v1/provenance/search?${qs}`, newIp());
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
  });

  it('is limited to 30 per minute per IP', async () => {
    const ip = newIp();
    for (let i = 0; i < 30; i++) expect((await app.http.get('/api/v1/provenance/search?q=eth', ip)).status).toBe(200);
    const r = await app.http.get('/api/v1/provenance/search?q=eth', ip);
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('rate_limited');
  });
});

describe('GET /provenance/receipts/:news_id', () => {
  it('source, canonical URL, TLDR (best-scored tldr yap), tags, top comments by score, edit history; no ingest receipt for a manual article', async () => {
    const id = ids.etf;
    const low = await yap(id, app.reader.userId, 'Short: ETH ETFs approved.', ['tldr'], 1);
    const best = await yap(id, app.editor.userId, 'TLDR: spot ETH ETFs can list; trading starts soon.', ['tldr', 'analysis'], 5);
    await yap(id, app.reader.userId, 'What about staking inside the ETF?', ['question'], 3);
    await yap(id, app.reader.userId, 'Bot noise', [], 0, -1);
    await app.deps.db
      .insertInto('article_edits')
      .values([
        {
          article_id: id,
          editor_id: app.editor.userId,
          changes: JSON.stringify({ headline: { from: 'SEC approves ETH ETFs', to: 'SEC approves spot Ethereum ETFs after long wait' } }),
          created_at: new Date(Date.now() - 3600_000),
        },
        { article_id: id, editor_id: app.editor.userId, changes: JSON.stringify({ tags: { from: ['etf'], to: ['etf', 'ethereum'] } }) },
      ])
      .execute();
    const r = await app.http.get(`/api/v1/provenance/receipts/${id}`, newIp());
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      news_id: id,
      status: 'approved',
      origin: 'manual',
      source: 'news.example',
      url: 'https://news.example/eth-etf',
      canonical_url: 'https://news.example/eth-etf',
      tags: ['etf', 'ethereum'],
      sponsored: false,
      ingest_receipt: null,
      meta: { first_seen_basis: 'leviathan_observation' },
    });
    expect(r.body.tldr).toMatchObject({ yap_id: best.id, score: 6 });
    expect(r.body.top_comments.map((c: any) => c.yap_id).slice(0, 3)).toEqual([best.id, expect.any(Number), low.id]);
    expect(r.body.top_comments[0].author).toEqual({ username: 'ed_itor', account_type: 'human' });
    expect(r.body.top_comments.map((c: any) => c.score)).toEqual([6, 4, 2, -1]);
    expect(r.body.edit_history).toHaveLength(2);
    expect(r.body.edit_history[0]).toMatchObject({ editor: { id: app.editor.userId, username: 'ed_itor' }, changes: { headline: { from: 'SEC approves ETH ETFs' } } });
  });

  it('an article without yaps or edits has a null TLDR and empty lists', async () => {
    const r = await app.http.get(`/api/v1/provenance/receipts/${ids.sol}`, newIp());
    expect(r.body).toMatchObject({ tldr: null, top_comments: [], edit_history: [], ingest_receipt: null });
  });

  it('a wire-promoted article carries its ingest receipt with every source that carried the item', async () => {
    const id = ids.wirePending;
    const item = await app.deps.db
      .insertInto('wire_items')
      .values({
        normalized_url: 'https://wire.example/eth',
        url: 'https://wire.example/eth?utm_source=feed',
        title: 'Ethereum ETF volumes double',
        source_name: 'Wire One',
        source_url: 'https://wire-one.example/rss',
        ingested_at: new Date(Date.now() - 2 * D),
        publisher_claimed_at: new Date(Date.now() - 3 * D),
        promoted_article_id: id,
        promoted_at: new Date(Date.now() - D),
        promoted_by: null,
        novelty: 0.92,
        score: 0.92,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await app.deps.db
      .insertInto('wire_receipts')
      .values([
        {
          wire_item_id: item.id,
          source_name: 'Wire One',
          source_url: 'https://wire-one.example/rss',
          item_url: 'https://wire.example/eth?utm_source=feed',
          ingested_at: new Date(Date.now() - 2 * D),
        },
        {
          wire_item_id: item.id,
          source_name: 'Wire Two',
          source_url: 'https://wire-two.example/atom',
          item_url: 'https://wire.example/eth',
          ingested_at: new Date(Date.now() - D),
        },
      ])
      .execute();
    // Not published yet: anonymous callers get 404, signed-in ones see it.
    expect((await app.http.get(`/api/v1/provenance/receipts/${id}`, newIp())).status).toBe(404);
    const r = await app.http.get(`/api/v1/provenance/receipts/${id}`, { ...newIp(), ...app.reader.bearer });
    expect(r.status).toBe(200);
    expect(r.body.ingest_receipt).toMatchObject({
      wire_item_id: item.id,
      source_name: 'Wire One',
      source_url: 'https://wire-one.example/rss',
      item_url: 'https://wire.example/eth?utm_source=feed',
      promoted_by: 'automatic',
      novelty: 0.92,
    });
    expect(r.body.ingest_receipt.receipts.map((x: any) => x.source_name)).toEqual(['Wire One', 'Wire Two']);
    expect(Date.parse(r.body.ingest_receipt.publisher_claimed_time)).toBeLessThan(Date.parse(r.body.ingest_receipt.ingested_at));
  });

  it('unknown id -> 404 article_not_found; malformed id -> 400', async () => {
    const r = await app.http.get('/api/v1/provenance/receipts/99999999', newIp());
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('article_not_found');
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999']) {
      const b = await app.http.get(`/api/v1/provenance/receipts/${bad}`, newIp());
      expect(b.status).toBe(400);
      expect(b.body.error.code).toBe('validation_failed');
    }
  });

  it('is limited to 60 per minute per IP', async () => {
    const ip = newIp();
    for (let i = 0; i < 60; i++) expect((await app.http.get(`/api/v1/provenance/receipts/${ids.sol}`, ip)).status).toBe(200);
    expect((await app.http.get(`/api/v1/provenance/receipts/${ids.sol}`, ip)).status).toBe(429);
  });
});
