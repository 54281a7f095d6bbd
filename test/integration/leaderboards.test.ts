import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import { monthsToCompute, runLeaderboards } from '../../jobs/leaderboards.js';
import { startTestWorkers } from '../support/workers.js';
import type { Session } from '../support/auth.js';
import { useTestApp } from '../support/app.js';
import { insertArticle } from '../support/articles.js';

const app = useTestApp();
let workers: Worker[] = [];
const M = '2025-06';
const at = (day: number, hour = 12) => new Date(Date.UTC(2025, 5, day, hour));
const NEXT = new Date(Date.UTC(2025, 6, 1, 0, 0, 1)); // one second into July
const BEFORE = new Date(Date.UTC(2025, 4, 31, 23, 59, 59)); // May

let A: Session, B: Session, C: Session, D: Session, E: Session, F: Session;
function article(by: Session | null, status: ArticleStatus, opts: { published?: Date; created?: Date } = {}) {
  return insertArticle(app.deps.db, { status, submittedBy: by?.userId ?? null, createdAt: opts.created ?? at(1), publishedAt: opts.published ?? null });
}
async function review(editor: Session, articleId: number, to: string, when: Date, from = 'submitted') {
  await app.deps.db
    .insertInto('article_edits')
    .values({ article_id: articleId, editor_id: editor.userId, changes: JSON.stringify({ status: { from, to } }), created_at: when })
    .execute();
}
async function vote(user: Session, articleId: number, when: Date, weight: 1 | -1 = 1) {
  await app.deps.db.insertInto('votes').values({ article_id: articleId, user_id: user.userId, weight, created_at: when }).execute();
}
async function yap(user: Session, articleId: number, base: -1 | 0 | 1, when: Date) {
  return (
    await app.deps.db
      .insertInto('yaps')
      .values({ article_id: articleId, user_id: user.userId, text: 'hm', base_score: base, created_at: when })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}
async function yapVote(user: Session, yapId: number, weight: 1 | -1, when: Date) {
  await app.deps.db.insertInto('yap_votes').values({ yap_id: yapId, user_id: user.userId, weight, created_at: when }).execute();
}

const board = async (name: string, qs = '') => {
  const r = await app.http.get(`/api/v1/leaderboards/?month=${M}&board=${name}&limit=100${qs}`);
  expect(r.status).toBe(200);
  return r.body.boards[name];
};
const summary = (b: any) => b.entries.map((e: any) => [e.user.id, e.rank, e.activity_count, e.market_share]);

beforeAll(async () => {
  const s = () => app.session();
  [A, B, C, D] = [await s(), await s(), await s(), await app.session({ accountType: 'bot' })];
  [E, F] = [await app.session({ roles: ['editor'] }), await app.session({ roles: ['editor'] })];

  // Posters: A 2, B 2, C 1, E 1 (approved and live in June). Not counted: C's killed and pending ones, C's
  // article that went live in July, A's article that went live in May, a retracted one, a wire item.
  const a1 = await article(A, 'approved', { published: at(3) });
  const a2 = await article(A, 'approved', { published: at(4) });
  const b1 = await article(B, 'approved', { published: at(5) });
  const b2 = await article(B, 'approved', { published: at(6) });
  const c1 = await article(C, 'approved', { published: at(7) });
  const c2 = await article(C, 'killed');
  const c3 = await article(C, 'approved', { published: NEXT });
  await article(C, 'submitted');
  await article(A, 'approved', { published: BEFORE, created: BEFORE });
  await article(B, 'retracted', { published: at(8) });
  await article(null, 'approved', { published: at(9) });
  const e1 = await article(E, 'approved', { published: at(10) });

  // Editors: E moved a1, a2, c2 out of submitted; F moved b1, b2, c1. Not counted: E approving its own
  // e1, F's review in July (c3), a retraction (not a move out of submitted).
  await review(E, a1, 'approved', at(3));
  await review(E, a2, 'approved', at(4));
  await review(E, c2, 'killed', at(5));
  await review(F, b1, 'approved', at(5));
  await review(F, b2, 'scheduled', at(5));
  await review(F, b2, 'approved', at(6), 'scheduled');
  await review(F, c1, 'approved', at(7));
  await review(E, e1, 'approved', at(10));
  await review(F, c3, 'approved', NEXT);
  await review(E, b1, 'retracted', at(20), 'approved');

  // Voters (article votes): A on b1 (+ A on own a1: excluded); B on a1 and a2 (+ own b1: excluded);
  // C on a1; A in July: not counted.
  await vote(A, b1, at(11));
  await vote(A, a1, at(11));
  await vote(B, a1, at(12), -1);
  await vote(B, a2, at(12));
  await vote(B, b1, at(12));
  await vote(C, a1, at(13));
  await vote(A, c1, NEXT);

  // Yappers: A's yap base 1 + B, C (+ A's own vote excluded) = 3; B's yap 1 - C = 0 (not ranked);
  // C (cyborg-like base 0) + A + B = 2; D (bot) -1 (not ranked); A's yap from May not counted.
  const ya = await yap(A, b1, 1, at(14));
  const yb = await yap(B, a1, 1, at(14));
  const yc = await yap(C, a1, 0, at(14));
  await yap(D, a1, -1, at(14));
  await yap(A, a1, 1, BEFORE);
  await yapVote(B, ya, 1, at(15));
  await yapVote(C, ya, 1, at(15));
  await yapVote(A, ya, 1, at(15));
  await yapVote(C, yb, -1, at(15));
  await yapVote(A, yc, 1, at(15));
  await yapVote(B, yc, 1, at(16));
  // A vote on A's yap cast after the month ended changes neither its June score nor June voting.
  await yapVote(D, ya, 1, NEXT);
  // Yap votes count as voting activity: A 1 (on C's), B 2 (A's, C's), C 2 (A's, B's).

  await runLeaderboards(app.deps.db, { month: M });
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

describe('leaderboard boards', () => {
  it('top posters: approved submissions live in the month; ties share a rank and the next rank skips', async () => {
    const b = await board('top_posters');
    expect(summary(b)).toEqual([
      [A.userId, 1, 2, 33.3333],
      [B.userId, 1, 2, 33.3333],
      [C.userId, 3, 1, 16.6667],
      [E.userId, 3, 1, 16.6667],
    ]);
    expect(b).toMatchObject({ total: 6, participants: 4, label: 'News submissions' });
  });

  it('top yappers: net yap score without self-votes or later votes; totals of 0 or less are not ranked', async () => {
    expect(summary(await board('top_yappers'))).toEqual([
      [A.userId, 1, 3, 60],
      [C.userId, 2, 2, 40],
    ]);
  });

  it('top voters: votes on articles and yaps of others only', async () => {
    // A: b1 + C's yap = 2; B: a1, a2 + A's yap, C's yap = 4; C: a1 + A's yap, B's yap = 3.
    expect(summary(await board('top_voters'))).toEqual([
      [B.userId, 1, 4, 44.4444],
      [C.userId, 2, 3, 33.3333],
      [A.userId, 3, 2, 22.2222],
    ]);
  });

  it('top editors: articles moved out of submitted in the month, own submissions excluded', async () => {
    expect(summary(await board('top_editors'))).toEqual([
      [E.userId, 1, 3, 50],
      [F.userId, 1, 3, 50],
    ]);
  });

  it('engagement: ranked by the sum of category shares, activity_count counts contributions', async () => {
    const b = await board('engagement');
    expect(b.entries.map((e: any) => e.user.id)).toEqual([A.userId, C.userId, B.userId, E.userId, F.userId]);
    const a = b.entries[0];
    // 33.3333 + 60 + 22.2222 (+ 0 editors)
    expect(a.score).toBeCloseTo(115.5556, 3);
    // 2 approved + 1 yap + 2 votes
    expect(a.activity_count).toBe(5);
    // B wrote a yap scoring 0: still a contribution (2 approved + 1 yap + 4 votes).
    expect(b.entries.find((e: any) => e.user.id === B.userId).activity_count).toBe(7);
    expect(b.entries.reduce((s: number, e: any) => s + e.market_share, 0)).toBeCloseTo(100, 2);
  });

  it('serves all five boards by default with the documented shape; limit cuts each board', async () => {
    const r = await app.http.get(`/api/v1/leaderboards/?month=${M}&limit=1`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['boards', 'computed_at', 'frozen', 'month']);
    expect(r.body.month).toBe(M);
    expect(r.body.frozen).toBe(false);
    expect(Object.keys(r.body.boards).sort()).toEqual(['engagement', 'top_editors', 'top_posters', 'top_voters', 'top_yappers']);
    expect(r.body.boards.top_posters.entries).toHaveLength(1);
    const e = r.body.boards.top_voters.entries[0];
    expect(Object.keys(e).sort()).toEqual(['activity_count', 'market_share', 'rank', 'score', 'user']);
    expect(e.user).toMatchObject({ id: B.userId, account_type: 'human' });
    expect(e.user.ethereum_address.toLowerCase()).toBe(B.address);
  });

  it('a month without a snapshot has empty boards; bad parameters are 400', async () => {
    const r = await app.http.get('/api/v1/leaderboards/?month=2024-01&board=top_posters');
    expect(r.body).toMatchObject({ month: '2024-01', computed_at: null, boards: { top_posters: { entries: [], total: 0, participants: 0 } } });
    for (const qs of ['month=2025-13', 'month=2025-6', 'month=2999-01', 'board=top_lurkers', 'limit=0', 'limit=101', 'limit=x', 'sort=rank']) {
      const bad = await app.http.get(`/api/v1/leaderboards/?${qs}`);
      expect(bad.status, qs).toBe(400);
      expect(bad.body.error.code).toBe('validation_failed');
    }
  });
});

describe('snapshot lifecycle', () => {
  it('a recompute replaces the snapshot: new activity shows up, the old entries are gone', async () => {
    const before = (await app.http.get(`/api/v1/leaderboards/?month=${M}`)).body.computed_at;
    const extra = await article(D, 'killed');
    await review(F, extra, 'killed', at(25));
    await runLeaderboards(app.deps.db, { month: M });
    expect(summary(await board('top_editors'))).toEqual([
      [F.userId, 1, 4, 57.1429],
      [E.userId, 2, 3, 42.8571],
    ]);
    const again = await app.http.get(`/api/v1/leaderboards/?month=${M}`);
    expect(new Date(again.body.computed_at).getTime()).toBeGreaterThan(new Date(before).getTime());
  });

  it('the scheduled run computes the current and previous month and backfills months with no snapshot, never frozen ones', async () => {
    const now = new Date(Date.UTC(2025, 8, 15)); // 2025-09
    // First activity is in May 2025: May, July, August, September (June already has a snapshot; it is older than the previous month).
    expect(await monthsToCompute(app.deps.db, now)).toEqual(['2025-05', '2025-07', '2025-08', '2025-09']);
    await app.deps.db.updateTable('leaderboard_snapshots').set({ frozen_at: new Date() }).where('month', '=', M).execute();
    await runLeaderboards(app.deps.db, {}, now);
    expect(await monthsToCompute(app.deps.db, now)).toEqual(['2025-08', '2025-09']);
    // A frozen month is not recomputed even when asked.
    const extra = await article(D, 'killed');
    await review(E, extra, 'killed', at(26));
    const [r] = await runLeaderboards(app.deps.db, { month: M });
    expect(r).toMatchObject({ computed: false, frozen: true });
    expect(summary(await board('top_editors'))[0]).toEqual([F.userId, 1, 4, 57.1429]);
    expect((await app.http.get(`/api/v1/leaderboards/?month=${M}`)).body.frozen).toBe(true);
    // May got its own snapshot (A's May article and yap).
    const may = await app.http.get('/api/v1/leaderboards/?month=2025-05&board=top_posters');
    expect(summary(may.body.boards.top_posters)).toEqual([[A.userId, 1, 1, 100]]);
  });

  it('runs as the registered `leaderboards` job on a worker', async () => {
    workers = startTestWorkers(app.deps, ['leaderboards'], { concurrencyCap: 2 });
    const r = await app.deps.queue.enqueueAndWait('leaderboards', { month: '2025-07' }, 10_000);
    expect(r.state).toBe('completed');
    if (r.state === 'completed') expect(r.result.months).toEqual([expect.objectContaining({ month: '2025-07', computed: true })]);
    await expect(app.deps.queue.enqueue('leaderboards', { month: '2025-7' })).rejects.toThrow();
  });
});
