/**
 * The per-vote credibility update through the relay and the credibility-vote job, without a full
 * recompute: a vote by an account flagged in the month's published flags gets its discounted weight
 * with readable reasons; a yap vote by a staff-confirmed account weighs 0; clearing a vote removes
 * its row; a full recompute whose cut-off precedes a vote keeps that vote's row and still deletes
 * the rows it no longer stages; a later recompute rewrites only the rows whose weight changed; every
 * vote costs one statement.
 */
import type { Worker } from 'bullmq';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { recomputeMonth, updateVoteCredibility } from '../../src/credibility/index.js';
import { REASONS } from '../../src/credibility/rules/weights.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { startRelay, type RunningRelay } from '../support/relay.js';
import request from '../support/request.js';
import { waitFor } from '../support/wait.js';
import { startTestWorkers } from '../support/workers.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let relay: RunningRelay;
let workers: Worker[];
let author: Session;
let voter: Session;
let confirmed: Session;
let articleId: number;
const MONTH = new Date().toISOString().slice(0, 7);
const OLD = new Date(Date.now() - 90 * 86_400_000);

async function weightRow(kind: 'article_vote' | 'yap_vote' | 'yap' | 'submission', targetId: number, userId: number) {
  return deps.db
    .selectFrom('credibility_weights')
    .select(['month', 'weight', 'reasons', 'written_at'])
    .where('kind', '=', kind)
    .where('target_id', '=', targetId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

async function completedJobs(): Promise<number> {
  return (await deps.queue.queue('credibility-vote').getJobCounts('completed')).completed;
}

async function oldAccount(): Promise<Session> {
  const s = await sessionFor(deps.db, deps.config.JWT_SECRET);
  await deps.db.updateTable('users').set({ created_at: OLD }).where('id', '=', s.userId).execute();
  return s;
}

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  relay = await startRelay(deps);
  workers = startTestWorkers(deps, ['credibility-vote']);
  [author, voter, confirmed] = [await oldAccount(), await oldAccount(), await oldAccount()];
  ({ id: articleId } = await deps.db
    .insertInto('articles')
    .values({
      slug: 'cv',
      headline: 'cv',
      url: 'https://cv.example/a',
      normalized_url: 'https://cv.example/a',
      status: 'approved',
      submitted_by: author.userId,
      published_at: new Date(),
    })
    .returning('id')
    .executeTakeFirstOrThrow());
  // The month's published flags (as a finished recompute leaves them) and a staff confirmation.
  await deps.db
    .insertInto('credibility_flags')
    .values({ month: MONTH, kind: 'indiscriminate', members: [voter.userId], evidence: JSON.stringify({ votes: 80 }) })
    .execute();
  await deps.db
    .insertInto('credibility_overrides')
    .values({ month: MONTH, kind: 'account', members: [confirmed.userId], decision: 'confirmed' })
    .execute();
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await relay.close();
  await deps.close();
});

describe('per-vote credibility update', () => {
  it("gives a flagged account's article vote its discounted weight through the job, and removes it when the vote is cleared", async () => {
    expect((await http.post(`/api/v1/news/${articleId}/vote`, { weight: 1 }, voter.bearer)).status).toBe(200);
    const row = await waitFor(() => weightRow('article_vote', articleId, voter.userId), { timeout: 10_000, what: 'the vote weight row' });
    expect(row.month).toBe(MONTH);
    expect(row.weight).toBeCloseTo(0.2, 5);
    expect(row.reasons).toEqual([REASONS.indiscriminate]);

    expect((await http.post(`/api/v1/news/${articleId}/vote`, { weight: 0 }, voter.bearer)).status).toBe(200);
    await waitFor(async () => (await weightRow('article_vote', articleId, voter.userId)) === undefined, { timeout: 10_000, what: 'the row removed' });
  });

  it("writes no row for an unflagged account's vote, and weighs a staff-confirmed account's yap vote 0", async () => {
    const yap = await http.post(`/api/v1/news/${articleId}/post_yap`, { text: 'a yap to vote on' }, author.bearer);
    expect(yap.status).toBe(201);
    const yapId = (yap.body as { yap_id: number }).yap_id;
    expect((await http.post(`/api/v1/news/${articleId}/yaps/${yapId}/vote`, { weight: 1 }, confirmed.bearer)).status).toBe(200);
    const row = await waitFor(() => weightRow('yap_vote', yapId, confirmed.userId), { timeout: 10_000, what: 'the yap vote weight row' });
    expect(row.weight).toBe(0);
    expect(row.reasons).toEqual([REASONS.confirmed]);

    const honest = await oldAccount();
    const done = await completedJobs();
    expect((await http.post(`/api/v1/news/${articleId}/vote`, { weight: 1 }, honest.bearer)).status).toBe(200);
    await waitFor(async () => (await completedJobs()) > done, { timeout: 10_000, what: 'the honest vote job' });
    expect(await weightRow('article_vote', articleId, honest.userId)).toBeUndefined();
  });

  it('a full recompute keeps the rows of votes cast after its cut-off and deletes the stale rows it no longer stages', async () => {
    const cutOff = new Date(Date.now() - 60_000);
    expect((await http.post(`/api/v1/news/${articleId}/vote`, { weight: -1 }, voter.bearer)).status).toBe(200);
    await waitFor(() => weightRow('article_vote', articleId, voter.userId), { timeout: 10_000, what: 'the vote weight row' });
    // A row left by an earlier recompute for an item this run no longer discounts.
    await deps.db
      .insertInto('credibility_weights')
      .values({ month: MONTH, kind: 'submission', target_id: articleId, user_id: author.userId, weight: 0.5, reasons: ['stale'], written_at: OLD })
      .execute();

    const r = await recomputeMonth(deps.db, MONTH, { now: cutOff });
    expect(r.status).toBe('finished');
    const kept = await weightRow('article_vote', articleId, voter.userId);
    expect(kept?.weight).toBeCloseTo(0.2, 5);
    expect(await weightRow('submission', articleId, author.userId)).toBeUndefined();
  });
  it('a later recompute rewrites only the rows whose weight changed and leaves equal rows as they were written', async () => {
    const yap = await deps.db.selectFrom('yaps').select('id').where('article_id', '=', articleId).executeTakeFirstOrThrow();
    expect((await http.post(`/api/v1/news/${articleId}/vote`, { weight: 1 }, confirmed.bearer)).status).toBe(200);
    await waitFor(() => weightRow('article_vote', articleId, confirmed.userId), { timeout: 10_000, what: 'the vote weight row' });
    expect((await recomputeMonth(deps.db, MONTH, { now: new Date() })).status).toBe('finished');
    const equalBefore = await weightRow('article_vote', articleId, confirmed.userId);
    expect(equalBefore?.weight).toBe(0);
    // A row an earlier run wrote with a weight this run decides differently.
    await deps.db
      .updateTable('credibility_weights')
      .set({ weight: 0.9, reasons: ['earlier'], written_at: OLD })
      .where('kind', '=', 'yap_vote')
      .where('target_id', '=', yap.id)
      .where('user_id', '=', confirmed.userId)
      .execute();

    expect((await recomputeMonth(deps.db, MONTH, { now: new Date() })).status).toBe('finished');
    const rewritten = await weightRow('yap_vote', yap.id, confirmed.userId);
    expect(rewritten).toMatchObject({ weight: 0, reasons: [REASONS.confirmed] });
    expect(rewritten!.written_at.getTime()).toBeGreaterThan(OLD.getTime());
    expect(await weightRow('article_vote', articleId, confirmed.userId)).toEqual(equalBefore);
  });

  it('sends one statement per vote: full weight without a row, a discounted vote written, and the row of a vote that regains full weight deleted', async () => {
    // The job's body called directly (no relay event, so no job runs beside it), statements counted.
    let statements = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => (statements++, args.node),
      transformResult: (args) => Promise.resolve(args.result),
    };
    const db = deps.db.withPlugin(counting);
    const honest = await oldAccount();
    const flagged = await oldAccount();
    await deps.db.insertInto('article_readers').values({ article_id: articleId, user_id: honest.userId }).execute();
    await deps.db
      .insertInto('votes')
      .values([
        { article_id: articleId, user_id: honest.userId, weight: 1 },
        { article_id: articleId, user_id: flagged.userId, weight: 1 },
      ])
      .execute();
    expect(await updateVoteCredibility(db, 'article_vote', articleId, honest.userId)).toEqual({ weight: 1, reasons: [] });
    expect(statements).toBe(1);
    expect(await weightRow('article_vote', articleId, honest.userId)).toBeUndefined();

    // Flagged: its row is written by the same one statement; once the flag is gone the vote regains full weight and its row is deleted.
    const flag = await deps.db
      .insertInto('credibility_flags')
      .values({ month: MONTH, kind: 'indiscriminate', members: [flagged.userId], evidence: JSON.stringify({ votes: 90 }) })
      .returning('id')
      .executeTakeFirstOrThrow();
    statements = 0;
    expect((await updateVoteCredibility(db, 'article_vote', articleId, flagged.userId)).weight).toBeLessThan(1);
    expect(statements).toBe(1);
    expect(await weightRow('article_vote', articleId, flagged.userId)).toBeDefined();
    await deps.db.deleteFrom('credibility_flags').where('id', '=', flag.id).execute();
    statements = 0;
    expect((await updateVoteCredibility(db, 'article_vote', articleId, flagged.userId)).weight).toBe(1);
    expect(statements).toBe(1);
    expect(await weightRow('article_vote', articleId, flagged.userId)).toBeUndefined();
  });
});
