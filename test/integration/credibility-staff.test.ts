/**
 * Staff and credibility flags: the flag list (paged envelope) and one flag, confirming and clearing
 * (staff only: 403 otherwise; unknown flags and accounts 404), the decision kept by the recompute
 * (cleared: full weight; confirmed: zero, for a stated reason), the public moderation log entry, and
 * the distribution applying a decision newer than the last recompute before it freezes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { recomputeMonth } from '../../src/credibility/index.js';
import { REASONS } from '../../src/credibility/rules/weights.js';
import { distributeMonth } from '../../src/rewards/service.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let staff: Session;
let editor: Session;
const MONTH = '2025-05';
const NOW = new Date('2025-06-02T00:10:00Z');
const cohort: number[] = [];
let honest: Session;
let newcomer: Session;

async function userCreated(at: string): Promise<Session> {
  const s = await sessionFor(deps.db, deps.config.JWT_SECRET);
  await deps.db
    .updateTable('users')
    .set({ created_at: new Date(at) })
    .where('id', '=', s.userId)
    .execute();
  return s;
}

/** An approved article by `author`, live on May 10th, with one upvote from each voter an hour apart. */
async function articleWithVotes(author: Session, voters: number[], slug: string) {
  const at = new Date('2025-05-10T08:00:00Z');
  const { id } = await deps.db
    .insertInto('articles')
    .values({
      slug,
      headline: slug,
      url: `https://e.org/${slug}`,
      normalized_url: `https://e.org/${slug}`,
      status: 'approved',
      submitted_by: author.userId,
      created_at: at,
      published_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await deps.db
    .insertInto('votes')
    .values(voters.map((u, i) => ({ article_id: id, user_id: u, weight: 1, created_at: new Date(at.getTime() + (i + 1) * 3_600_000) })))
    .execute();
  await deps.db
    .insertInto('article_readers')
    .values(voters.map((u) => ({ article_id: id, user_id: u })))
    .execute();
}

const weightsOf = (ids: number[]) =>
  deps.db.selectFrom('credibility_weights').select(['user_id', 'weight', 'reasons']).where('month', '=', MONTH).where('user_id', 'in', ids).execute();

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  staff = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['staff'], username: 'staffer' });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'] });
  const author = await userCreated('2025-01-01T00:00:00Z');
  honest = await userCreated('2025-01-02T00:00:00Z');
  // Four accounts created within minutes from one address: a cohort.
  for (let i = 0; i < 4; i++) {
    const s = await userCreated(`2025-04-01T10:0${i}:00Z`);
    cohort.push(s.userId);
    await deps.db
      .insertInto('sign_in_fingerprints')
      .values({ user_id: s.userId, ip_hash: 'shared-address', ua_hash: `agent-${i}`, at: new Date(`2025-04-01T10:0${i}:00Z`) })
      .execute();
  }
  // An account that votes on its first day: its vote counts half.
  newcomer = await userCreated('2025-05-10T07:00:00Z');
  await articleWithVotes(author, [honest.userId, ...cohort, newcomer.userId], 'cs-one');
  expect((await recomputeMonth(deps.db, MONTH, { now: NOW })).status).toBe('finished');
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

async function cohortFlag() {
  const r = await http.get(`/api/v1/credibility/flags/?month=${MONTH}&kind=cohort`, staff.bearer);
  expect(r.status).toBe(200);
  return r;
}

describe('staff see the flags', () => {
  it("lists the month's flags with their accounts and evidence in a paged envelope; one flag by its id", async () => {
    const r = await cohortFlag();
    expect(r.body).toMatchObject({ count: 1, next: null, previous: null });
    const f = r.body.results[0];
    expect(f).toMatchObject({ month: MONTH, kind: 'cohort', accounts: 4, decision: null, evidence: { accounts: 4, created_within_s: 180 } });
    expect(f.id).toMatch(/^2025-05\.cohort\.[0-9a-f]{12}$/);
    expect(f.members.map((m: { id: number }) => m.id)).toEqual([...cohort].sort((a, b) => a - b));
    expect(f.members[0].address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const one = await http.get(`/api/v1/credibility/flags/${f.id}/`, staff.bearer);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(f);
    const paged = await http.get(`/api/v1/credibility/flags/?month=${MONTH}&per_page=1`, staff.bearer);
    expect(paged.body.results).toHaveLength(1);
    expect(paged.body.count).toBeGreaterThanOrEqual(1);
  });

  it('refuses callers without the staff role, and answers 404 with a code for a flag or account that does not exist', async () => {
    const { id } = (await cohortFlag()).body.results[0];
    expect((await http.get(`/api/v1/credibility/flags/?month=${MONTH}`)).status).toBe(401);
    const asEditor = await http.get(`/api/v1/credibility/flags/?month=${MONTH}`, editor.bearer);
    expect(asEditor.status).toBe(403);
    expect(asEditor.body.error.code).toBe('staff_required');
    const confirmAsEditor = await http.post(`/api/v1/credibility/flags/${id}/confirm`, {}, editor.bearer);
    expect(confirmAsEditor.status).toBe(403);
    expect(confirmAsEditor.body.error.code).toBe('staff_required');
    expect((await http.post(`/api/v1/credibility/accounts/${cohort[0]}/clear`, { month: MONTH }, editor.bearer)).status).toBe(403);
    expect(await deps.db.selectFrom('credibility_overrides').selectAll().execute()).toEqual([]);

    const missing = await http.post(`/api/v1/credibility/flags/${MONTH}.cohort.000000000000/confirm`, {}, staff.bearer);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('credibility_flag_not_found');
    expect((await http.get(`/api/v1/credibility/flags/${MONTH}.ring.abcdefabcdef/`, staff.bearer)).body.error.code).toBe('credibility_flag_not_found');
    expect((await http.get('/api/v1/credibility/flags/not-an-id/', staff.bearer)).status).toBe(400);
    const noAccount = await http.get('/api/v1/credibility/accounts/2000000000/', staff.bearer);
    expect(noAccount.status).toBe(404);
    expect(noAccount.body.error.code).toBe('credibility_account_not_found');
    expect((await http.post('/api/v1/credibility/accounts/2000000000/confirm', { month: MONTH }, staff.bearer)).body.error.code).toBe('credibility_account_not_found');
  });
});

describe('staff decide, and the recompute keeps the decision', () => {
  it('clearing a flag makes its accounts count at full weight through the next recompute; the flag keeps its id', async () => {
    expect(await weightsOf(cohort)).toHaveLength(4);
    const { id } = (await cohortFlag()).body.results[0];
    const r = await http.post(`/api/v1/credibility/flags/${id}/clear`, { note: 'a family sharing one router' }, staff.bearer);
    expect(r.status).toBe(200);
    expect(r.body.decision).toMatchObject({ decision: 'cleared', note: 'a family sharing one router', decided_by: { id: staff.userId, username: 'staffer' } });
    expect((await recomputeMonth(deps.db, MONTH, { now: NOW })).status).toBe('finished');
    expect(await weightsOf(cohort)).toEqual([]);
    const after = (await cohortFlag()).body.results[0];
    expect(after.id).toBe(id);
    expect(after.decision.decision).toBe('cleared');
    expect((await http.get(`/api/v1/credibility/flags/?month=${MONTH}&decision=open&kind=cohort`, staff.bearer)).body.count).toBe(0);
  });

  it('clearing one account lifts its own discounts; its month shows the decision', async () => {
    expect((await weightsOf([newcomer.userId]))[0]).toMatchObject({ weight: 0.5, reasons: [REASONS.newAccount] });
    const before = await http.get(`/api/v1/credibility/accounts/${newcomer.userId}/?month=${MONTH}`, staff.bearer);
    expect(before.body.discounted).toEqual([{ kind: 'article_vote', reason: REASONS.newAccount, items: 1 }]);
    const r = await http.post(`/api/v1/credibility/accounts/${newcomer.userId}/clear`, { month: MONTH }, staff.bearer);
    expect(r.status).toBe(200);
    expect(r.body.decision).toMatchObject({ decision: 'cleared', note: null });
    await recomputeMonth(deps.db, MONTH, { now: NOW });
    expect(await weightsOf([newcomer.userId])).toEqual([]);
  });

  it('the moderation log lists both decisions: publicly kind, month and count, the note and accounts for staff only', async () => {
    const { id } = (await cohortFlag()).body.results[0];
    expect((await http.post(`/api/v1/credibility/flags/${id}/confirm`, { note: 'votes only on one friend' }, staff.bearer)).status).toBe(200);
    const pub = await http.get('/api/v1/modlog/?action=credibility_clear');
    expect(pub.status).toBe(200);
    const cleared = pub.body.results.find((e: { credibility: { kind: string } }) => e.credibility.kind === 'cohort');
    expect(cleared).toMatchObject({
      action: 'credibility_clear',
      article: null,
      story: null,
      credibility: { month: MONTH, kind: 'cohort', accounts: 4 },
      editor: { name: 'staffer' },
    });
    expect(cleared.credibility).not.toHaveProperty('members');
    expect(cleared).not.toHaveProperty('note');
    expect(JSON.stringify(pub.body)).not.toContain('created_within_s');
    const all = await http.get('/api/v1/modlog/', staff.bearer);
    const confirmed = all.body.results.find((e: { action: string }) => e.action === 'credibility_confirm');
    expect(confirmed).toMatchObject({ credibility: { kind: 'cohort', accounts: 4, members: [...cohort].sort((a, b) => a - b) }, note: 'votes only on one friend' });
    const byStaff = await http.get('/api/v1/modlog/?editor=staffer');
    expect(byStaff.body.results.map((e: { action: string }) => e.action)).toEqual(['credibility_confirm', 'credibility_clear', 'credibility_clear']);
  });

  it('a confirmation newer than the last recompute is applied before the distribution freezes: the accounts get nothing', async () => {
    // The confirmation above came after the latest finished run; the distribution recomputes first.
    const s = await distributeMonth(deps.db, MONTH, NOW, { recomputeWaitMs: 2_000 });
    expect(s.status).toBe('distributed');
    for (const w of await weightsOf(cohort)) {
      expect(w.weight).toBe(0);
      expect(w.reasons[0]).toBe(REASONS.confirmed);
    }
    expect(await weightsOf(cohort)).toHaveLength(4);
    const drops = await deps.db.selectFrom('reward_drops').select(['user_id', 'top_voters']).where('month', '=', MONTH).execute();
    const paid = new Set(drops.filter((d) => Number(d.top_voters) > 0).map((d) => d.user_id));
    expect(paid.has(honest.userId)).toBe(true);
    expect(paid.has(newcomer.userId)).toBe(true);
    for (const u of cohort) expect(paid.has(u)).toBe(false);
    const runs = await deps.db.selectFrom('credibility_runs').select('id').where('month', '=', MONTH).execute();
    expect(runs).toHaveLength(4);
  });
});
