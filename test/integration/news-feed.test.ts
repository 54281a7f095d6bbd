import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import { slugify } from '../../src/platform/url/slug.js';
import { invalidateFeedCache } from '../../src/feed/cache.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { useTestApp } from '../support/app.js';

let relay: RunningRelay;

const BASE = 'https://news.example.com';
const app = useTestApp({ alice: { username: 'alice' }, editor: { roles: ['editor'], username: 'ed' } }, { PUBLIC_BASE_URL: BASE });
const UNI = '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984';
const ids: Record<string, number> = {};

async function insertArticle(key: string, v: { status: ArticleStatus; hot?: number; votes?: number; hoursAgo: number; tokens?: string[]; publishedHoursAgo?: number }) {
  const created = new Date(Date.now() - v.hoursAgo * 3600_000);
  const published = v.status === 'approved' || v.status === 'retracted' ? new Date(Date.now() - (v.publishedHoursAgo ?? v.hoursAgo) * 3600_000) : null;
  const row = await app.deps.db
    .insertInto('articles')
    .values({
      slug: slugify(key),
      headline: `Headline ${key}`,
      url: `https://site.example/${key}`,
      normalized_url: `https://site.example/${key}`,
      source: 'site.example',
      status: v.status,
      submitted_by: app.alice.userId,
      created_at: created,
      published_at: published,
      token_addresses: v.tokens ?? [],
      token_symbols: v.tokens ? ['UNI'] : [],
      vote_count: v.votes ?? 0,
      votes_cast: Math.abs(v.votes ?? 0),
      issuer_name: key === 'a1' ? 'Uniswap Foundation' : null,
      issuer_website: key === 'a1' ? 'https://uniswap.example' : null,
      tags: key === 'a1' ? ['governance'] : [],
      content_type: key === 'a1' ? 'governance_proposal' : null,
      clicks: key === 'a1' ? 12 : 0,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await app.deps.db
    .updateTable('article_hot_scores')
    .set({ hot_score: v.hot ?? 0 })
    .where('article_id', '=', row.id)
    .execute();
  ids[key] = row.id;
}

beforeAll(async () => {
  relay = await startRelay(app.deps);
  // approved: a1 hottest, a2 most voted, a3 newest publication (but oldest submission)
  await insertArticle('a1', { status: 'approved', hot: 50, votes: 3, hoursAgo: 5, tokens: [UNI] });
  await insertArticle('a2', { status: 'approved', hot: 10, votes: 9, hoursAgo: 4 });
  await insertArticle('a3', { status: 'approved', hot: 20, votes: -1, hoursAgo: 30, publishedHoursAgo: 1, tokens: [UNI] });
  await insertArticle('s1', { status: 'submitted', hoursAgo: 2 });
  await insertArticle('s2', { status: 'submitted', hoursAgo: 1 });
  await insertArticle('k1', { status: 'killed', hoursAgo: 3, tokens: [UNI] });
  await insertArticle('r1', { status: 'retracted', hoursAgo: 6 });
  await insertArticle('c1', { status: 'scheduled', hoursAgo: 7 });
  // top_tldr candidates on a1: the best-scored tldr wins; a better non-tldr yap and a negative tldr do not.
  const bot = await app.session({ accountType: 'bot' });
  await app.deps.db
    .insertInto('yaps')
    .values([
      { article_id: ids.a1, user_id: app.alice.userId, text: 'TL;DR one', tags: ['tldr'], base_score: 1, vote_score: 2 },
      { article_id: ids.a1, user_id: app.editor.userId, text: 'TL;DR two', tags: ['analysis', 'tldr'], base_score: 1, vote_score: 0 },
      { article_id: ids.a1, user_id: app.editor.userId, text: 'Deep analysis', tags: ['analysis'], base_score: 1, vote_score: 10 },
      { article_id: ids.a2, user_id: bot.userId, text: 'bot tldr', tags: ['tldr'], base_score: -1, vote_score: 0 },
    ])
    .execute();
});
afterAll(async () => {
  await relay.close();
});

const idsOf = (r: { body: { results: { id: number }[] } }) => r.body.results.map((a) => a.id);

describe('GET /news/', () => {
  it('defaults to approved, hot, page 1 of 20, with the DRF envelope', async () => {
    const r = await app.http.get('/api/v1/news/');
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['count', 'next', 'previous', 'results']);
    expect(r.body.count).toBe(3);
    expect(r.body.next).toBeNull();
    expect(r.body.previous).toBeNull();
    expect(idsOf(r)).toEqual([ids.a1, ids.a3, ids.a2]);
  });

  it('items carry every spec field; votes is votes cast, vote_count net; top_tldr is the best tldr yap', async () => {
    const r = await app.http.get('/api/v1/news/');
    const a1 = r.body.results[0];
    expect(a1).toMatchObject({
      id: ids.a1,
      headline: 'Headline a1',
      url: 'https://site.example/a1',
      status: 'approved',
      source: 'site.example',
      token_addresses: [UNI],
      token_symbols: ['UNI'],
      issuer: { name: 'Uniswap Foundation', website: 'https://uniswap.example' },
      tags: ['governance'],
      content_type: 'governance_proposal',
      clicks: 12,
      vote_count: 3,
      votes: 3,
      hot_score: 50,
    });
    expect(a1.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(a1.published_at).toMatch(/Z$/);
    expect(a1.top_tldr).toEqual({
      yap_id: expect.any(Number),
      text: 'TL;DR one',
      score: 3,
      tags: ['tldr'],
      created_at: expect.stringMatching(/Z$/),
      author: { id: app.alice.userId, username: 'alice' },
    });
    const a2 = r.body.results.find((a: { id: number }) => a.id === ids.a2);
    expect(a2.top_tldr).toBeNull(); // only a negative-scored tldr
    expect(a2.issuer).toEqual({ name: null, website: null });
  });

  it('sort_type=new orders approved articles by publication time, top by net votes', async () => {
    expect(idsOf(await app.http.get('/api/v1/news/?sort_type=new'))).toEqual([ids.a3, ids.a2, ids.a1]);
    expect(idsOf(await app.http.get('/api/v1/news/?sort_type=top'))).toEqual([ids.a2, ids.a1, ids.a3]);
  });

  it('pages with absolute next/previous URLs that keep the other parameters', async () => {
    const p1 = await app.http.get('/api/v1/news/?per_page=1&sort_type=top');
    expect(p1.body.count).toBe(3);
    expect(idsOf(p1)).toEqual([ids.a2]);
    expect(p1.body.previous).toBeNull();
    expect(p1.body.next).toBe(`${BASE}/api/v1/news/?per_page=1&sort_type=top&page=2`);
    const p2 = await app.http.get(new URL(p1.body.next).pathname + new URL(p1.body.next).search);
    expect(idsOf(p2)).toEqual([ids.a1]);
    expect(p2.body.previous).toBe(`${BASE}/api/v1/news/?per_page=1&sort_type=top`);
    expect(p2.body.next).toBe(`${BASE}/api/v1/news/?per_page=1&sort_type=top&page=3`);
    const p3 = await app.http.get('/api/v1/news/?per_page=1&sort_type=top&page=3');
    expect(p3.body.next).toBeNull();
    const past = await app.http.get('/api/v1/news/?per_page=1&page=9');
    expect(past.status).toBe(200);
    expect(past.body.results).toEqual([]);
    expect(past.body.count).toBe(3);
    expect(past.body.previous).toBe(`${BASE}/api/v1/news/?per_page=1&page=3`);
  });

  it('filters by token address case-insensitively, with limit as the page size', async () => {
    const mixed = '0x1F9840a85d5aF5bf1D1762F925BDADdC4201F984';
    const r = await app.http.get(`/api/v1/news/?token_address=${mixed}`);
    expect(idsOf(r)).toEqual([ids.a1, ids.a3]);
    const lim = await app.http.get(`/api/v1/news/?token_address=${UNI}&limit=1`);
    expect(idsOf(lim)).toEqual([ids.a1]);
    expect(lim.body.count).toBe(2);
    expect(lim.body.next).toContain('limit=1');
    const none = await app.http.get('/api/v1/news/?token_address=0x0000000000000000000000000000000000000001');
    expect(none.body).toMatchObject({ count: 0, results: [] });
    // status=all with the token filter includes the killed article for signed-in callers.
    expect(idsOf(await app.http.get(`/api/v1/news/?token_address=${UNI}&status=all&sort_type=new`, app.alice.bearer))).toContain(ids.k1);
  });

  it('status=submitted and status=all need credentials; the editor queue is submitted + new', async () => {
    for (const s of ['submitted', 'all']) {
      const r = await app.http.get(`/api/v1/news/?status=${s}`);
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('auth_required');
    }
    const q = await app.http.get('/api/v1/news/?status=submitted&sort_type=new', app.editor.bearer);
    expect(idsOf(q)).toEqual([ids.s2, ids.s1]);
    const all = await app.http.get('/api/v1/news/?status=all&sort_type=new&per_page=100', { cookie: `access_token=${app.alice.token}` });
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(8);
  });

  it('rejects unknown, repeated and out-of-range parameters with 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['status=killed', 'query.status'],
      ['sort_type=best', 'query.sort_type'],
      ['page=0', 'query.page'],
      ['page=abc', 'query.page'],
      ['page=1.5', 'query.page'],
      ['page=10001', 'query.page'],
      ['per_page=0', 'query.per_page'],
      ['per_page=101', 'query.per_page'],
      ['limit=500', 'query.limit'],
      ['per_page=10&limit=10', 'query.limit'],
      ['token_address=0x123', 'query.token_address'],
      ['token_address=', 'query.token_address'],
      ['page=1&page=2', 'query.page'],
      ['foo=bar', 'query.foo'],
    ];
    for (const [qs, path] of cases) {
      const r = await app.http.get(`/api/v1/news/?${qs}`);
      expect(r.status, qs).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(
        r.body.error.details.fields.map((f: { path: string }) => f.path),
        qs,
      ).toContain(path);
    }
  });

  it('uses the indexes: hot page from the status/hot index, token filter from the GIN index, top_tldr from the partial index', async () => {
    // Enough rows that a sequential scan is not the cheap choice.
    await sql`
      INSERT INTO articles (slug, headline, url, normalized_url, status, published_at, token_addresses)
      SELECT 'x', 'x ' || g, 'https://bulk.example/' || g, 'https://bulk.example/' || g, 'approved', now(),
             CASE WHEN g % 100 = 0 THEN ARRAY['0x00000000000000000000000000000000000000aa'] ELSE '{}' END
      FROM generate_series(1, 5000) g`.execute(app.deps.db);
    await sql`
      UPDATE article_hot_scores h SET hot_score = random()
      FROM articles a WHERE a.id = h.article_id AND a.url LIKE 'https://bulk.example/%'`.execute(app.deps.db);
    await sql`ANALYZE articles`.execute(app.deps.db);
    await sql`ANALYZE article_hot_scores`.execute(app.deps.db);
    await sql`ANALYZE yaps`.execute(app.deps.db);
    await invalidateFeedCache(app.deps.redis, app.deps.config.QUEUE_PREFIX); // written behind the API's back
    const explain = async (q: { compile(): { sql: string; parameters: readonly unknown[] } }) => {
      const c = q.compile();
      const r = await app.deps.db.executeQuery<{ 'QUERY PLAN': string }>({ ...c, sql: `EXPLAIN ${c.sql}`, query: c as never } as never);
      return r.rows.map((x) => x['QUERY PLAN']).join('\n');
    };
    const hot = await explain(
      app.deps.db
        .selectFrom('article_hot_scores as h')
        .select(['h.article_id'])
        .where('h.status', '=', 'approved')
        .orderBy('h.hot_score', 'desc')
        .orderBy('h.article_id', 'desc')
        .limit(20),
    );
    expect(hot).toContain('article_hot_scores_status_hot_idx');
    const token = await explain(
      app.deps.db
        .selectFrom('article_hot_scores as h')
        .select(['h.article_id'])
        .where('h.status', '=', 'approved')
        .where('h.article_id', 'in', (eb) =>
          eb
            .selectFrom('articles as a')
            .select('a.id')
            .where(sql<boolean>`a.token_addresses @> ARRAY[${'0x00000000000000000000000000000000000000aa'}]::text[]`),
        )
        .orderBy('h.hot_score', 'desc')
        .orderBy('h.article_id', 'desc')
        .limit(20),
    );
    expect(token).toContain('articles_token_addresses_idx');
    // yaps is tiny here, so forbid the sequential scan to see which index the probe can use.
    const tldr = await app.deps.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      return sql<{
        'QUERY PLAN': string;
      }>`EXPLAIN SELECT id FROM yaps y WHERE y.article_id = ${ids.a1} AND 'tldr' = ANY (y.tags) AND y.score >= 0 ORDER BY y.score DESC, y.id LIMIT 1`.execute(trx);
    });
    expect(tldr.rows.map((x) => x['QUERY PLAN']).join('\n')).toContain('yaps_article_tldr_idx');
    // The feed still answers with the bulk rows present.
    const r = await app.http.get('/api/v1/news/?per_page=5');
    expect(r.body.count).toBe(5003);
    await sql`DELETE FROM articles WHERE url LIKE 'https://bulk.example/%'`.execute(app.deps.db);
    await invalidateFeedCache(app.deps.redis, app.deps.config.QUEUE_PREFIX);
  });
});

describe('feed cache', () => {
  it('every caller shares a briefly cached page (signed-in callers get their my_vote on top); editorial changes retire it at once', async () => {
    const path = '/api/v1/news/?sort_type=top&per_page=2';
    const first = await app.http.get(path);
    await app.deps.db.updateTable('articles').set({ headline: 'Changed behind the API' }).where('id', '=', ids.a2).execute();
    const cached = await app.http.get(path);
    expect(cached.text).toBe(first.text);
    // A signed-in reader is served the same shared page, plus its own my_vote on each item.
    const signedIn = await app.http.get(path, app.alice.bearer);
    expect(signedIn.body.results.map((r: { headline: string }) => r.headline)).toEqual(first.body.results.map((r: { headline: string }) => r.headline));
    expect(signedIn.body.results.every((r: { my_vote: number }) => r.my_vote === 0)).toBe(true);
    // An editor's edit retires the cached pages as soon as the relay has relayed its event.
    const e = await app.http.request('PATCH', `/api/v1/news/${ids.a2}/`, { headline: 'Edited by an editor' }, app.editor.bearer);
    expect(e.status).toBe(200);
    await relayed(app.deps);
    expect((await app.http.get(path)).body.results[0].headline).toBe('Edited by an editor');
    // And entries expire on their own.
    await app.deps.db.updateTable('articles').set({ headline: 'Headline a2' }).where('id', '=', ids.a2).execute();
    await expect.poll(async () => (await app.http.get(path)).body.results[0].headline, { timeout: 4000, interval: 200 }).toBe('Headline a2');
  });
});

describe('GET /news/:id/', () => {
  it('returns the full record with hot_terms; submitter and my_vote only for signed-in callers', async () => {
    // The terms as a recompute stores them (score is the article's hot_score, 50).
    await app.deps.db
      .updateTable('article_hot_scores')
      .set({ votes: 3, yap_quality: 1, click_term: 0.93, engagement: 4.93, points: 5.93, age_hours: 5, decay: 33.6, hot_computed_at: new Date() })
      .where('article_id', '=', ids.a1)
      .execute();
    const anon = await app.http.get(`/api/v1/news/${ids.a1}/`);
    expect(anon.status).toBe(200);
    expect(anon.body).toMatchObject({
      id: ids.a1,
      headline: 'Headline a1',
      normalized_url: 'https://site.example/a1',
      headline_source: 'supplied',
      scheduled_for: null,
      reviewed_by: null,
      hot_terms: {
        votes: 3,
        yap_quality: 1,
        click_term: 0.93,
        engagement: 4.93,
        points: 5.93,
        age_hours: 5,
        decay: 33.6,
        score: 50,
        computed_at: expect.stringMatching(/Z$/),
        explanation: expect.stringContaining('votes 3'),
      },
    });
    expect(anon.body).not.toHaveProperty('submitted_by');
    expect(anon.body).not.toHaveProperty('my_vote');
    const authed = await app.http.get(`/api/v1/news/${ids.a1}/`, app.alice.bearer);
    expect(authed.body.submitted_by).toMatchObject({ id: app.alice.userId, username: 'alice' });
    expect(authed.body.my_vote).toBe(0);
  });

  it('retracted articles are public; submitted, killed and scheduled ones are 404 for anonymous callers', async () => {
    expect((await app.http.get(`/api/v1/news/${ids.r1}/`)).body.status).toBe('retracted');
    for (const k of ['s1', 'k1', 'c1']) {
      const anon = await app.http.get(`/api/v1/news/${ids[k]}/`);
      expect(anon.status).toBe(404);
      expect(anon.body.error.code).toBe('article_not_found');
      expect((await app.http.get(`/api/v1/news/${ids[k]}/`, app.alice.bearer)).status).toBe(200);
    }
  });

  it('404 for unknown ids, 400 for malformed ones', async () => {
    const r = await app.http.get('/api/v1/news/999999/');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('article_not_found');
    for (const bad of ['abc', '0', '-1', '99999999999']) {
      const b = await app.http.get(`/api/v1/news/${bad}/`);
      expect(b.status, bad).toBe(400);
      expect(b.body.error.details.fields[0].path).toBe('params.id');
    }
  });
});

describe('GET /news/:id/click', () => {
  const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36' };
  const clicks = async (id: number) => (await app.deps.db.selectFrom('articles').select('clicks').where('id', '=', id).executeTakeFirstOrThrow()).clicks;

  it('redirects to the article URL and counts a browser click once per reader per window', async () => {
    const before = await clicks(ids.a2);
    const r = await app.http.get(`/api/v1/news/${ids.a2}/click`, browser);
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('https://site.example/a2');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(await clicks(ids.a2)).toBe(before + 1);
    await app.http.get(`/api/v1/news/${ids.a2}/click`, browser);
    expect(await clicks(ids.a2)).toBe(before + 1); // same reader within CLICK_DEDUPE_S
    await app.http.get(`/api/v1/news/${ids.a2}/click`, { ...browser, ...app.alice.bearer });
    expect(await clicks(ids.a2)).toBe(before + 2); // another reader (signed in)
  });

  it('redirects crawlers, link previews and scripted clients without counting them', async () => {
    const before = await clicks(ids.a3);
    for (const ua of ['Twitterbot/1.0', 'facebookexternalhit/1.1', 'curl/8.0', 'python-requests/2.31', '']) {
      const r = await app.http.get(`/api/v1/news/${ids.a3}/click`, { 'user-agent': ua });
      expect(r.status).toBe(302);
    }
    expect(await clicks(ids.a3)).toBe(before);
  });

  it('does not count clicks on unpublished articles; 404 for unknown or hidden ones', async () => {
    const r = await app.http.get(`/api/v1/news/${ids.s1}/click`, { ...browser, ...app.alice.bearer });
    expect(r.status).toBe(302);
    expect(await clicks(ids.s1)).toBe(0);
    expect((await app.http.get(`/api/v1/news/${ids.s1}/click`, browser)).status).toBe(404);
    expect((await app.http.get('/api/v1/news/999999/click', browser)).status).toBe(404);
  });
});
