import type { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import { hotScore, type HotTerms } from '../../src/articles/rules/hot-score.js';
import { invalidateFeedCache } from '../../src/feed/cache.js';
import { hotTermsJson, recomputeHotScores } from '../../src/articles/hot-score-queries.js';
import { startTestWorkers } from '../support/workers.js';
import { useTestApp } from '../support/app.js';
import { insertArticle } from '../support/articles.js';

const app = useTestApp({ submitter: {}, editor: { roles: ['editor'] } }, { HOT_SCORE_DEBOUNCE_MS: '300', HOT_SCORE_WINDOW_HOURS: '168' });
let workers: Worker[] = [];

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

async function article(v: { status?: ArticleStatus; votes?: number; clicks?: number; publishedHoursAgo: number }) {
  const published = new Date(Date.now() - v.publishedHoursAgo * 3600_000);
  const status = v.status ?? 'approved';
  return insertArticle(app.deps.db, {
    status,
    submittedBy: app.submitter.userId,
    createdAt: new Date(published.getTime() - 3600_000),
    publishedAt: status === 'approved' ? published : null,
    voteCount: v.votes ?? 0,
    clicks: v.clicks ?? 0,
  });
}

async function yap(articleId: number, userId: number, score: number) {
  const base = Math.max(-1, Math.min(1, score)) as -1 | 0 | 1;
  await app.deps.db
    .insertInto('yaps')
    .values({ article_id: articleId, user_id: userId, text: 'y', base_score: base, vote_score: score - base })
    .execute();
}

async function stored(id: number) {
  return app.deps.db
    .selectFrom('article_hot_scores as h')
    .select(['h.hot_score', 'h.hot_computed_at', hotTermsJson.as('hot_terms')])
    .where('h.article_id', '=', id)
    .executeTakeFirstOrThrow();
}

describe('set-based recompute', () => {
  it('the SQL twin agrees with src/articles/rules/hot-score.ts term by term', async () => {
    const others = await Promise.all(Array.from({ length: 3 }, () => app.session()));
    const a = await article({ votes: 7, clicks: 1000, publishedHoursAgo: 5 });
    await yap(a, others[0].userId, 5); // capped at 3
    await yap(a, others[0].userId, 1); // same author: only the best counts
    await yap(a, others[1].userId, 1);
    await yap(a, others[2].userId, -1); // a bot's -1: nothing
    await yap(a, app.submitter.userId, 4); // the submitter's own: nothing
    const b = await article({ votes: -3, clicks: 2, publishedHoursAgo: 0.5 });
    const c = await article({ status: 'submitted', votes: 2, publishedHoursAgo: 30 });
    const n = await recomputeHotScores(app.deps.db, { articleIds: [a, b, c], windowHours: 168 });
    expect(n).toBe(3);
    const expectations: [number, number[], number, number, number][] = [
      [a, [3, 1], 7, 1000, 5],
      [b, [], -3, 2, 0.5],
      [c, [], 2, 0, 31], // submitted: age from created_at
    ];
    for (const [id, best, votes, clicks, age] of expectations) {
      const s = await stored(id);
      const terms = s.hot_terms as HotTerms;
      const expected = hotScore({ votes, yapAuthorBestScores: best, clicks, ageHours: terms.age_hours });
      expect(terms.age_hours).toBeCloseTo(age, 1);
      for (const key of ['votes', 'yap_quality', 'click_term', 'engagement', 'points', 'decay', 'score'] as const) {
        expect(terms[key], `${id} ${key}`).toBeCloseTo(expected[key], 2);
      }
      expect(s.hot_score).toBeCloseTo(expected.score, 2);
    }
    expect((await stored(a)).hot_terms).toMatchObject({ yap_quality: 2 });
    expect((await stored(b)).hot_score).toBe(0);
  });

  it('recomputes only approved and submitted articles inside the window; `all` ignores the window', async () => {
    const recent = await article({ votes: 1, publishedHoursAgo: 2 });
    const old = await article({ votes: 50, publishedHoursAgo: 200 });
    const killed = await article({ status: 'killed', votes: 5, publishedHoursAgo: 1 });
    await recomputeHotScores(app.deps.db, { windowHours: 168 });
    expect((await stored(recent)).hot_computed_at).not.toBeNull();
    expect((await stored(old)).hot_computed_at).toBeNull();
    expect((await stored(killed)).hot_computed_at).toBeNull();
    await recomputeHotScores(app.deps.db, { windowHours: 168, all: true });
    expect((await stored(old)).hot_score).toBeGreaterThan(0);
    expect((await stored(killed)).hot_computed_at).toBeNull();
  });

  it('routine runs skip rows whose score barely moved; single-article and `all` runs always write', async () => {
    await app.deps.db.deleteFrom('articles').execute();
    const young = await article({ votes: 2, publishedHoursAgo: 1 });
    const old = await article({ votes: 2, publishedHoursAgo: 100 });
    const t0 = Date.now();
    expect(await recomputeHotScores(app.deps.db, { windowHours: 168, now: new Date(t0) })).toBe(2);
    expect(await recomputeHotScores(app.deps.db, { windowHours: 168, now: new Date(t0) })).toBe(0);
    // Five minutes on: the young article's score fell by ~8 %, the old one's by ~0.15 % (kept).
    expect(await recomputeHotScores(app.deps.db, { windowHours: 168, now: new Date(t0 + 5 * 60_000) })).toBe(1);
    expect((await stored(young)).hot_computed_at!.getTime()).toBe(t0 + 5 * 60_000);
    expect((await stored(old)).hot_computed_at!.getTime()).toBe(t0);
    // A vote changes the engagement: written whatever the size of the move.
    await app.deps.db.updateTable('articles').set({ vote_count: 3 }).where('id', '=', old).execute();
    expect(await recomputeHotScores(app.deps.db, { windowHours: 168, now: new Date(t0 + 6 * 60_000) })).toBe(2);
    // Terms older than an hour are refreshed.
    expect(await recomputeHotScores(app.deps.db, { windowHours: 168, now: new Date(t0 + 2 * 3600_000) })).toBe(2);
    expect(await recomputeHotScores(app.deps.db, { windowHours: 168, articleIds: [old], now: new Date(t0 + 2 * 3600_000) })).toBe(1);
    expect(await recomputeHotScores(app.deps.db, { windowHours: 168, all: true, now: new Date(t0 + 2 * 3600_000) })).toBe(2);
  });

  it('ranks the hot feed: votes lift, age sinks', async () => {
    await app.deps.db.deleteFrom('articles').execute();
    const fresh = await article({ votes: 0, publishedHoursAgo: 0.2 });
    const voted = await article({ votes: 40, publishedHoursAgo: 10 });
    const stale = await article({ votes: 40, publishedHoursAgo: 60 });
    const buried = await article({ votes: -2, publishedHoursAgo: 0.1 });
    await recomputeHotScores(app.deps.db, { windowHours: 168 });
    await invalidateFeedCache(app.deps.redis, app.deps.config.QUEUE_PREFIX); // the job does this; here the query ran directly
    const feed = await app.http.get('/api/v1/news/');
    expect(feed.body.results.map((a: { id: number }) => a.id)).toEqual([voted, fresh, stale, buried]);
  });
});

describe('jobs', () => {
  it('votes, yaps and clicks trigger a debounced recompute that the worker runs; the record shows the terms', async () => {
    workers = startTestWorkers(app.deps, ['hot-scores'], { concurrencyCap: 4 });
    const id = (await app.http.post('/api/v1/news/post', { url: 'https://hot.example/live', headline: 'Live scoring' }, app.submitter.bearer)).body.article_id;
    await app.http.post(`/api/v1/news/${id}/approve`, undefined, app.editor.bearer);
    const before = (await app.http.get(`/api/v1/news/${id}/`)).body;
    expect(before.hot_terms).toMatchObject({ votes: 0, points: 1 });
    const voters = await Promise.all(Array.from({ length: 5 }, () => app.session()));
    await Promise.all(voters.map((v) => app.http.post(`/api/v1/news/${id}/vote`, { weight: 1 }, v.bearer)));
    await app.http.post(`/api/v1/news/${id}/post_yap`, { text: 'insightful', tags: ['analysis'] }, voters[0].bearer);
    await app.http.get(`/api/v1/news/${id}/click`, { 'user-agent': 'Mozilla/5.0 Firefox/120' });
    // The burst may straddle a debounce window: wait for the recompute that saw all of it.
    await expect
      .poll(
        async () => {
          const t = (await app.http.get(`/api/v1/news/${id}/`)).body.hot_terms;
          return t && [t.votes, t.yap_quality, t.click_term];
        },
        { timeout: 5000, interval: 100 },
      )
      .toEqual([5, 0.5, 0.25]);
    const after = (await app.http.get(`/api/v1/news/${id}/`)).body;
    expect(after.hot_terms).toMatchObject({ votes: 5, yap_quality: 0.5, click_term: 0.25 });
    expect(after.hot_terms.explanation).toMatch(/^votes 5 \+ yaps 0\.5 \+ clicks 0\.25 = engagement 5\.75/);
    expect(after.hot_score).toBeGreaterThan(before.hot_score);
  });

  it('the scheduled run (empty payload) recomputes the window', async () => {
    const id = await article({ votes: 3, publishedHoursAgo: 1 });
    const r = await app.deps.queue.enqueueAndWait('hot-scores', {}, 5000);
    expect(r.state).toBe('completed');
    if (r.state === 'completed') expect(r.result.updated).toBeGreaterThanOrEqual(1);
    expect((await stored(id)).hot_terms).toMatchObject({ votes: 3 });
  });
});
