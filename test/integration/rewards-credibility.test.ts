/**
 * Credibility in the rewards: the distribution refuses to freeze a month whose credibility recompute
 * is held unfinished by another runner (credibility_recompute_pending, 409) and freezes it once the
 * run can finish; users see how much of their activity counted (include=credited on the boards,
 * include=credibility on their earnings), in general terms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createApp } from '../../src/app.js';
import { recomputeMonth } from '../../src/credibility/index.js';
import { errorCodes } from '../../src/platform/errors/codes.js';
import { DomainError } from '../../src/platform/errors/index.js';
import { monthOf } from '../../src/rewards/rules/rewards.js';
import { distributeMonth, runLeaderboards } from '../../src/rewards/service.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';
import { insertArticle } from '../support/articles.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
});
afterAll(() => deps.close());

const approvedArticle = (by: Session, at: Date) => insertArticle(deps.db, { submittedBy: by.userId, createdAt: at, publishedAt: at });

describe('the distribution gate', () => {
  const month = '2025-03';
  const now = new Date('2025-04-02T00:10:00Z');

  it('refuses while another runner holds the recompute, then distributes once the run can finish', async () => {
    const author = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const voter = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const id = await approvedArticle(author, new Date('2025-03-10T12:00:00Z'));
    await deps.db
      .insertInto('votes')
      .values({ article_id: id, user_id: voter.userId, weight: 1, created_at: new Date('2025-03-10T13:00:00Z') })
      .execute();
    // Another runner started the month's recompute and holds its lease.
    await deps.db
      .insertInto('credibility_runs')
      .values({ month, as_of: new Date('2025-04-01T00:00:00Z'), lease_until: sql<Date>`now() + interval '10 minutes'` })
      .execute();

    const refused = await distributeMonth(deps.db, month, now, { recomputeWaitMs: 300 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('credibility_recompute_pending');
    expect(errorCodes.credibility_recompute_pending.status).toBe(409);
    expect(await deps.db.selectFrom('reward_distributions').select('month').where('month', '=', month).execute()).toEqual([]);
    const snap = await deps.db.selectFrom('leaderboard_snapshots').select('frozen_at').where('month', '=', month).executeTakeFirst();
    expect(snap?.frozen_at ?? null).toBeNull();

    // The other runner died: its lease runs out, and the distribution takes the run over.
    await deps.db
      .updateTable('credibility_runs')
      .set({ lease_until: sql<Date>`now() - interval '1 second'` })
      .where('month', '=', month)
      .execute();
    const done = await distributeMonth(deps.db, month, now, { recomputeWaitMs: 300 });
    expect(done.status).toBe('distributed');
    expect(done.recipients).toBe(2);
    const runs = await deps.db.selectFrom('credibility_runs').select(['finished_at', 'attempts']).where('month', '=', month).execute();
    expect(runs).toHaveLength(1);
    expect(runs[0].finished_at).not.toBeNull();
    expect(runs[0].attempts).toBe(2);
  });
});

describe('how much counted', () => {
  it('shows the credited share on the boards and, on earnings, the share and the general reasons', async () => {
    const month = monthOf(new Date());
    const author = await sessionFor(deps.db, deps.config.JWT_SECRET);
    // A voter whose account is a day old: its votes count half, for a stated reason.
    const voter = await sessionFor(deps.db, deps.config.JWT_SECRET);
    // Times a few minutes back: the recompute's cut-off is its start, to the millisecond, and a vote
    // stamped within that same millisecond would fall after it.
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await deps.db
      .updateTable('users')
      .set({ created_at: ago(3) })
      .where('id', '=', voter.userId)
      .execute();
    const id = await approvedArticle(author, ago(4));
    await deps.db
      .insertInto('votes')
      .values({ article_id: id, user_id: voter.userId, weight: 1, created_at: ago(2) })
      .execute();
    await deps.db.insertInto('article_readers').values({ article_id: id, user_id: voter.userId }).execute();
    expect((await recomputeMonth(deps.db, month)).status).toBe('finished');
    await runLeaderboards(deps.db, { month });

    const plain = await http.get('/api/v1/leaderboards/?board=top_voters');
    expect(plain.status).toBe(200);
    expect(plain.body.boards.top_voters.entries[0]).not.toHaveProperty('credited_share');
    const credited = await http.get('/api/v1/leaderboards/?board=top_voters&include=credited');
    const mine = credited.body.boards.top_voters.entries.find((e: { user: { id: number } }) => e.user.id === voter.userId);
    expect(mine).toMatchObject({ activity_count: 1, score: 0.5, credited_share: 0.5 });
    expect((await http.get('/api/v1/leaderboards/?include=everything')).status).toBe(400);

    const earnings = await http.get('/api/v1/wallet/me/earnings/?include=credibility', voter.bearer);
    expect(earnings.status).toBe(200);
    expect(earnings.body.leaderboard_positions.top_voters).toMatchObject({ activity_count: 1, credited_score: 0.5, credited_share: 0.5 });
    expect(earnings.body.leaderboard_positions.top_posters).toMatchObject({ credited_score: 0, credited_share: null });
    expect(earnings.body.credibility.reasons).toEqual([{ reason: "cast in the account's first day", items: 1 }]);
    const plainEarnings = await http.get('/api/v1/wallet/me/earnings/', voter.bearer);
    expect(plainEarnings.body).not.toHaveProperty('credibility');
    expect(plainEarnings.body.leaderboard_positions.top_voters).toEqual({ rank: 1, market_share: expect.any(Number), activity_count: 1 });
  });
});
