/**
 * Cold pages: a GET /news/ page with since/until is picked from the filter's match list
 * kept in the web process (src/feed/match-lists.ts) instead of the page + count SQL statement. It
 * must be the same response byte for byte as the query gives (compared with an app whose feed
 * cache is off, which queries every time), across sorts, statuses, filters, bounds and pages, with
 * ties in every sort key, an unpublished article and one without a hot-score row; and a change to
 * an article (announced as the relay does) must show on the next request. Both ways a web process
 * serves such a page are compared: with no Redis round trip while it knows the feed cache's current
 * generation (`fast`), and through the cache's Redis read when it does not (`slow`).
 */
import type Koa from 'koa';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { invalidateFeedCache } from '../../src/feed/cache.js';
import { FeedMatchLists } from '../../src/feed/match-lists.js';
import { feedPageWithCount, type FeedQuery } from '../../src/articles/queries.js';
import { allRoutes } from '../../src/routes.js';
import { feedRoutes } from '../../src/feed/routes.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let fast: ReturnType<typeof request>;
let slow: ReturnType<typeof request>;
let queried: ReturnType<typeof request>;
let alice: Session;
const HOUR = 3600_000;
const t0 = Date.now();
const statuses = ['approved', 'approved', 'approved', 'submitted', 'killed', 'approved'] as const;

beforeAll(async () => {
  deps = await createTestDeps();
  alice = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'alice' });
  for (let i = 0; i < 36; i++) {
    const status = statuses[i % statuses.length];
    // Ties in every sort key: hours repeat (same published_at to the microsecond), votes and hot scores too.
    const at = new Date(t0 - (i % 12) * HOUR);
    const row = await deps.db
      .insertInto('articles')
      .values({
        slug: `story-${i}`,
        headline: `Story ${i} & <co> "quoted"`,
        url: `https://site${i % 3}.example/${i}`,
        normalized_url: `https://site${i % 3}.example/${i}`,
        source: `site${i % 3}.example`,
        status,
        submitted_by: alice.userId,
        created_at: at,
        // One approved article without a publication time: no since/until matches it.
        published_at: status === 'approved' && i !== 7 ? at : null,
        token_addresses: [],
        token_symbols: i % 4 === 0 ? ['UNI'] : ['AAVE'],
        tags: i % 2 === 0 ? ['defi'] : ['markets'],
        vote_count: i % 5,
        votes_cast: i % 5,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await deps.db
      .updateTable('article_hot_scores')
      .set({ hot_score: i % 7 })
      .where('article_id', '=', row.id)
      .execute();
    // Sub-millisecond times (PostgreSQL keeps microseconds): bounds at the whole millisecond must cut as the query does.
    if (i % 3 === 0)
      await deps.db
        .updateTable('articles')
        .set({ created_at: sql`created_at + interval '500 microseconds'`, published_at: sql`published_at + interval '500 microseconds'` })
        .where('id', '=', row.id)
        .execute();
    // The page query joins article_hot_scores: an article without a row is left out of pages (not of counts).
    if (i === 12) await deps.db.deleteFrom('article_hot_scores').where('article_id', '=', row.id).execute();
  }
  const withFeed = (opts: Parameters<typeof feedRoutes>[1]) =>
    createApp(
      deps,
      allRoutes(deps).map((r) => (r.operationId === 'listArticles' ? feedRoutes(deps, opts).find((x) => x.operationId === 'listArticles')! : r)),
    ) as Koa;
  // The generation read from Redis is trusted for a minute (an invalidation in this process withdraws it) or never.
  fast = request(withFeed({ feedGenCheckMs: 60_000 }));
  slow = request(withFeed({ feedGenCheckMs: 0 }));
  queried = request(withFeed({ feedCacheTtlMs: 0 }));
});

afterAll(async () => {
  await fast.close();
  await slow.close();
  await queried.close();
  await deps.close();
});

const iso = (ms: number) => new Date(ms).toISOString();

function queries(): string[] {
  const bounds = [
    `since=${iso(t0 - 6 * HOUR + 1)}`,
    `until=${iso(t0 - 3 * HOUR)}`,
    `until=${iso(t0 - 3 * HOUR + 1)}`,
    `since=${iso(t0 - 9 * HOUR)}&until=${iso(t0 - 2 * HOUR)}`,
    `since=${iso(t0 + HOUR)}`,
  ];
  const filters = ['', 'tag=defi', 'token_symbol=uni', 'tag=markets&source=site1.example'];
  const out: string[] = [];
  for (const sort of ['hot', 'new', 'top'])
    for (const status of ['approved', 'submitted', 'all'])
      for (const b of bounds) for (const f of filters) for (const p of ['', '&per_page=3&page=2']) out.push(`sort_type=${sort}&status=${status}&${b}${f ? `&${f}` : ''}${p}`);
  return out;
}

async function sameAsQuery(qs: string) {
  // Signed in (status=submitted and all need it; the page gets the caller's my_vote on top) and, for approved, anonymous.
  const as = qs.includes('status=approved') || !qs.includes('status=') ? [alice.bearer, {}] : [alice.bearer];
  let first;
  for (const auth of as) {
    const [a, c, b] = await Promise.all([fast.get(`/api/v1/news/?${qs}`, auth), slow.get(`/api/v1/news/?${qs}`, auth), queried.get(`/api/v1/news/?${qs}`, auth)]);
    expect(a.status, qs).toBe(200);
    expect(a.text, qs).toBe(b.text);
    expect(c.text, qs).toBe(b.text);
    expect(a.headers.get('etag'), qs).toMatch(/^"/);
    expect(a.headers.get('etag'), qs).toBe(b.headers.get('etag'));
    expect(c.headers.get('etag'), qs).toBe(b.headers.get('etag'));
    first ??= a;
  }
  return first!;
}

describe('cold since/until pages from the match list', () => {
  it('are the query result byte for byte: items, order, count, links, ETag', async () => {
    const all = queries();
    let nonEmpty = 0;
    for (const qs of all) if ((await sameAsQuery(qs)).body.results.length > 0) nonEmpty++;
    // The cases are not vacuous: most pages hold items.
    expect(nonEmpty).toBeGreaterThan(all.length / 3);
  }, 120_000);

  it("come from the list (from a filter's second time-bounded request on), not the page query, and agree with it for every sort and status", async () => {
    const lists = new FeedMatchLists(deps.db, 2000, (r) => String(r.id));
    for (const sort of ['hot', 'new', 'top'] as const)
      for (const status of ['approved', 'submitted', 'all'] as const) {
        const q: FeedQuery = { status, sort, tags: ['defi'], since: new Date(t0 - 8 * HOUR), page: 1, perPage: 4 };
        // A filter's first time-bounded request is left to the query (a one-off filter is not worth a list); the next one builds it.
        expect(await lists.page('g1', q), `${sort} ${status}`).toBeUndefined();
        const page = await lists.page('g1', { ...q, since: new Date(t0 - 8 * HOUR + 1) });
        const sql = await feedPageWithCount(deps.db, { ...q, since: new Date(t0 - 8 * HOUR + 1) });
        expect(page, `${sort} ${status}`).toBeDefined();
        expect(page!.ids, `${sort} ${status}`).toEqual(sql.rows.map((r) => r.id));
        expect(page!.count, `${sort} ${status}`).toBe(sql.count);
      }
  });

  it('show a change to an article on the next request once it is announced (vote, status, edit)', async () => {
    const qs = `sort_type=top&since=${iso(t0 - 6 * HOUR)}`;
    const before = await sameAsQuery(qs);
    const first = before.body.results[before.body.results.length - 1].id as number;
    await deps.db.updateTable('articles').set({ vote_count: 100 }).where('id', '=', first).execute();
    await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
    const voted = await sameAsQuery(qs);
    expect(voted.body.results[0].id).toBe(first);
    expect(voted.headers.get('etag')).not.toBe(before.headers.get('etag'));

    await deps.db.updateTable('articles').set({ status: 'killed' }).where('id', '=', first).execute();
    await deps.db.updateTable('article_hot_scores').set({ status: 'killed' }).where('article_id', '=', first).execute();
    await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
    const killed = await sameAsQuery(qs);
    expect(killed.body.results.map((r: { id: number }) => r.id)).not.toContain(first);
    expect(killed.body.count).toBe(before.body.count - 1);

    const second = killed.body.results[0].id as number;
    await deps.db.updateTable('articles').set({ headline: 'Edited headline' }).where('id', '=', second).execute();
    await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
    expect((await sameAsQuery(qs)).body.results[0].headline).toBe('Edited headline');
  });

  it('cost no Redis read while the process knows the generation; Last-Modified stays until a change, then moves on', async () => {
    const at = (ms: number) => `/api/v1/news/?sort_type=new&tag=markets&since=${iso(t0 - 10 * HOUR + ms)}`;
    // The first time-bounded request of the filter runs the query, the second builds its list.
    await fast.get(at(1));
    const warm = await fast.get(at(2));
    const reads = vi.spyOn(deps.redis, 'mgetBuffer');
    try {
      const pages = [];
      for (let ms = 3; ms < 13; ms++) pages.push(await fast.get(at(ms)));
      expect(reads).not.toHaveBeenCalled();
      expect(pages.map((p) => p.status)).toEqual(pages.map(() => 200));
      const lm = warm.headers.get('last-modified')!;
      expect(pages.map((p) => p.headers.get('last-modified'))).toEqual(pages.map(() => lm));
      // Conditional requests on such a page: its ETag, and its Last-Modified, answer 304.
      const again = pages[0];
      expect((await fast.get(at(3), { 'if-none-match': again.headers.get('etag')! })).status).toBe(304);
      expect((await fast.get(at(3), { 'if-modified-since': lm })).status).toBe(304);
      expect(reads).not.toHaveBeenCalled();

      // A change (announced as the relay does) withdraws the trust: one read, then a new ETag and a later Last-Modified.
      // A real wait: Last-Modified is an HTTP date (one-second resolution) from the wall clock, so a
      // later one needs a later second.
      await new Promise((r) => setTimeout(r, 1100));
      const id = again.body.results[0].id as number;
      await deps.db.updateTable('articles').set({ headline: 'Changed again' }).where('id', '=', id).execute();
      await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
      const changed = await fast.get(at(3));
      expect(reads).toHaveBeenCalledTimes(1);
      expect(changed.body.results[0].headline).toBe('Changed again');
      expect(changed.headers.get('etag')).not.toBe(again.headers.get('etag'));
      expect(Date.parse(changed.headers.get('last-modified')!)).toBeGreaterThan(Date.parse(lm));
      expect((await fast.get(at(3), { 'if-modified-since': lm })).status).toBe(200);
    } finally {
      reads.mockRestore();
    }
  });
});
