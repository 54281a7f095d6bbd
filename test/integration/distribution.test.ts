import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import type { Worker } from 'bullmq';
import { sql } from 'kysely';
import { getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POOL_UNITS, TOKEN_UNIT } from '../../src/rewards/rules/rewards.js';
import { setAllocation } from '../../src/rewards/queries.js';
import { distributeMonth } from '../../src/rewards/service.js';
import { runLeaderboards } from '../../jobs/leaderboards.js';
import { startTestWorkers } from '../support/workers.js';
import type { Session } from '../support/auth.js';
import { useTestApp } from '../support/app.js';
import { insertArticle } from '../support/articles.js';

const app = useTestApp();
let workers: Worker[] = [];
const users: Session[] = [];
const article = (by: Session, published: Date) => insertArticle(app.deps.db, { submittedBy: by.userId, createdAt: published, publishedAt: published });
async function vote(u: Session, articleId: number, when: Date) {
  await app.deps.db.insertInto('votes').values({ article_id: articleId, user_id: u.userId, weight: 1, created_at: when }).execute();
}
async function yap(u: Session, articleId: number, when: Date) {
  await app.deps.db.insertInto('yaps').values({ article_id: articleId, user_id: u.userId, text: 't', base_score: 1, created_at: when }).execute();
}

/** Activity in a month: posters 3:2:1, one yapper, three equal voters (a remainder to share), no editors. */
async function seedMonth(year: number, month0: number) {
  const d = (day: number) => new Date(Date.UTC(year, month0, day, 12));
  const [u1, u2, u3, u4, u5] = users;
  const arts = [];
  for (const [u, k] of [
    [u1, 3],
    [u2, 2],
    [u3, 1],
  ] as const)
    for (let i = 0; i < k; i++) arts.push(await article(u, d(2 + i)));
  await yap(u4, arts[0], d(5));
  for (const u of [u4, u5, u1]) await vote(u, arts[5], d(6)); // arts[5] is u3's
}

beforeAll(async () => {
  for (let i = 0; i < 5; i++) users.push(await app.session());
  await seedMonth(2025, 9); // 2025-10
  await seedMonth(2025, 10); // 2025-11
  await seedMonth(2025, 11); // 2025-12
  await setAllocation(app.deps.db, '2025-10', { top_posters: 4000, top_yappers: 3000, top_voters: 2000, top_editors: 1000 }, 'DAO vote #12');
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

async function drops(month: string) {
  const r = await sql<{ address: string; user_id: number; amount: string; p: string; y: string; v: string; e: string; proof: string[] }>`
    SELECT address, user_id, amount::text, top_posters::text AS p, top_yappers::text AS y, top_voters::text AS v, top_editors::text AS e, proof
    FROM reward_drops WHERE month = ${month} ORDER BY user_id`.execute(app.deps.db);
  return r.rows;
}

describe('monthly distribution', () => {
  it('splits each category exactly (18-decimal integers, largest remainder) and stores root and proofs', async () => {
    const s = await distributeMonth(app.deps.db, '2025-10');
    expect(s.status).toBe('distributed');
    expect(s.recipients).toBe(5);
    const alloc = (pct: bigint) => (1_000_000n * pct * TOKEN_UNIT) / 100n;
    // Every category with participants pays exactly its allocation; nobody reviewed, so editors pay nothing.
    expect(s.totals).toEqual({
      top_posters: { allocated: alloc(40n).toString(), distributed: alloc(40n).toString(), recipients: 3 },
      top_yappers: { allocated: alloc(30n).toString(), distributed: alloc(30n).toString(), recipients: 1 },
      top_voters: { allocated: alloc(20n).toString(), distributed: alloc(20n).toString(), recipients: 3 },
      top_editors: { allocated: alloc(10n).toString(), distributed: '0', recipients: 0 },
    });
    expect(BigInt(s.total_distributed)).toBe(POOL_UNITS - alloc(10n));
    const rows = await drops('2025-10');
    expect(rows.reduce((t, r) => t + BigInt(r.amount), 0n)).toBe(BigInt(s.total_distributed));
    for (const r of rows) expect(BigInt(r.amount)).toBe(BigInt(r.p) + BigInt(r.y) + BigInt(r.v) + BigInt(r.e));
    const [u1, u2, u3, u4, u5] = users.map((u) => rows.find((r) => r.user_id === u.userId)!);
    // Posters 3:2:1 of 400,000 tokens: 200,000 / 133,333.33.. / 66,666.66.. with the remainder units by largest remainder.
    expect(BigInt(u1.p)).toBe(200_000n * TOKEN_UNIT);
    expect(BigInt(u2.p) + BigInt(u3.p)).toBe(200_000n * TOKEN_UNIT);
    // u2's exact share ends in .333.. and u3's in .666..: the one leftover unit goes to u3 (larger remainder).
    expect(BigInt(u2.p)).toBe((400_000n * TOKEN_UNIT * 2n) / 6n);
    expect(BigInt(u3.p)).toBe((400_000n * TOKEN_UNIT) / 6n + 1n);
    expect(BigInt(u4.y)).toBe(300_000n * TOKEN_UNIT);
    // Voters: 200,000 tokens among three equal voters: 2 leftover units go to the two lowest user ids.
    const third = (200_000n * TOKEN_UNIT) / 3n;
    const voters = [u1, u4, u5].sort((a, b) => a.user_id - b.user_id);
    expect(voters.map((v) => BigInt(v.v) - third)).toEqual([1n, 1n, 0n]);
  });

  it('every stored proof verifies against the root with OpenZeppelin StandardMerkleTree.verify', async () => {
    const pub = await app.http.get('/api/v1/rewards/distributions/2025-10/');
    const rows = await drops('2025-10');
    for (const r of rows) {
      expect(r.address).toBe(getAddress(r.address));
      expect(StandardMerkleTree.verify(pub.body.merkle_root, ['address', 'uint256'], [r.address, r.amount], r.proof)).toBe(true);
      expect(StandardMerkleTree.verify(pub.body.merkle_root, ['address', 'uint256'], [r.address, (BigInt(r.amount) + 1n).toString()], r.proof)).toBe(false);
    }
  });

  it('publishes the month: anyone can rebuild the tree from the listed drops and get the same root', async () => {
    const r = await app.http.get('/api/v1/rewards/distributions/2025-10/');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ month: '2025-10', leaf_encoding: ['address', 'uint256'], decimals: 18, recipients: 5, pool_amount: POOL_UNITS.toString() });
    expect(r.body.allocation.top_posters).toEqual({ percent: 40, amount: (400_000n * TOKEN_UNIT).toString() });
    const tree = StandardMerkleTree.of(
      r.body.drops.map((d: any) => [d.address, d.amount]),
      ['address', 'uint256'],
    );
    expect(tree.root).toBe(r.body.merkle_root);
    const one = await app.http.get(`/api/v1/rewards/distributions/2025-10/${users[0].address}/`);
    expect(one.status).toBe(200);
    expect(StandardMerkleTree.verify(r.body.merkle_root, ['address', 'uint256'], [one.body.address, one.body.amount], one.body.proof)).toBe(true);
    expect(one.body.amount_squid).toMatch(/^\d+(\.\d+)?$/);
    const list = await app.http.get('/api/v1/rewards/distributions/');
    expect(list.body.results.map((x: any) => x.month)).toContain('2025-10');
    // 404s and 400s.
    expect((await app.http.get('/api/v1/rewards/distributions/2024-01/')).body.error.code).toBe('distribution_not_found');
    const stranger = await app.session();
    expect((await app.http.get(`/api/v1/rewards/distributions/2025-10/${stranger.address}/`)).body.error.code).toBe('drop_not_found');
    expect((await app.http.get('/api/v1/rewards/distributions/2025-1/')).status).toBe(400);
    expect((await app.http.get('/api/v1/rewards/distributions/2025-10/0x123/')).status).toBe(400);
  });

  it('is idempotent: a second run changes nothing, and the month is frozen', async () => {
    const before = await drops('2025-10');
    const root = (await app.http.get('/api/v1/rewards/distributions/2025-10/')).body.merkle_root;
    // Late activity for October does not move a closed month.
    await vote(users[1], await article(users[2], new Date(Date.UTC(2025, 9, 30))), new Date(Date.UTC(2025, 9, 30)));
    await runLeaderboards(app.deps.db, { month: '2025-10' });
    const again = await distributeMonth(app.deps.db, '2025-10');
    expect(again.status).toBe('already_distributed');
    expect(again.merkle_root).toBe(root);
    expect(await drops('2025-10')).toEqual(before);
    const lb = await app.http.get('/api/v1/leaderboards/?month=2025-10&board=top_posters');
    expect(lb.body.frozen).toBe(true);
    expect(lb.body.boards.top_posters.total).toBe(6);
  });

  it('two concurrent runs for one month: one distributes, the other finds it done', async () => {
    const results = await Promise.all([distributeMonth(app.deps.db, '2025-11'), distributeMonth(app.deps.db, '2025-11'), distributeMonth(app.deps.db, '2025-11')]);
    expect(results.map((r) => r.status).sort()).toEqual(['already_distributed', 'already_distributed', 'distributed']);
    expect(new Set(results.map((r) => r.merkle_root)).size).toBe(1);
    const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM reward_drops WHERE month = '2025-11'`.execute(app.deps.db);
    expect(count.rows[0].n).toBe(5);
    // No allocation was set for November: October's vote stays in force (carried).
    const nov = await app.http.get('/api/v1/rewards/distributions/2025-11/');
    expect(nov.body.allocation.top_posters.percent).toBe(40);
  });

  it('refuses a month that is not over; the job runs on a worker and is idempotent there too', async () => {
    const now = new Date();
    const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    expect((await distributeMonth(app.deps.db, current)).status).toBe('month_not_over');
    workers = startTestWorkers(app.deps, ['monthly-distribution', 'leaderboards'], { concurrencyCap: 2 });
    const first = await app.deps.queue.enqueueAndWait('monthly-distribution', { month: '2025-12' }, 15_000);
    expect(first.state === 'completed' && first.result.status).toBe('distributed');
    const second = await app.deps.queue.enqueueAndWait('monthly-distribution', { month: '2025-12' }, 15_000);
    expect(second.state === 'completed' && second.result).toMatchObject({
      status: 'already_distributed',
      merkle_root: first.state === 'completed' ? first.result.merkle_root : '',
    });
    await expect(app.deps.queue.enqueueAndWait('monthly-distribution', { month: current }, 15_000)).rejects.toThrow(/not over/);
  });

  it('a month without any activity is recorded with no root and no drops', async () => {
    const s = await distributeMonth(app.deps.db, '2024-02');
    expect(s).toMatchObject({ status: 'distributed', merkle_root: null, recipients: 0, total_distributed: '0' });
    // Default allocation (no vote recorded before October 2025).
    expect(s.allocation!.top_voters).toEqual({ percent: 25, amount: (250_000n * TOKEN_UNIT).toString() });
  });
});

describe('allocation endpoint', () => {
  it('shows the split set for a month, carried forward, or the default', async () => {
    const set = await app.http.get('/api/v1/rewards/allocation/?month=2025-10');
    expect(set.body).toMatchObject({ month: '2025-10', source: 'set', from_month: '2025-10', pool_tokens: 1_000_000 });
    expect(set.body.allocation.top_posters).toEqual({ percent: 40, tokens: 400_000 });
    expect((await app.http.get('/api/v1/rewards/allocation/?month=2026-01')).body).toMatchObject({ source: 'carried', from_month: '2025-10' });
    const def = await app.http.get('/api/v1/rewards/allocation/?month=2025-01');
    expect(def.body).toMatchObject({ source: 'default', from_month: null });
    expect(def.body.allocation.top_editors).toEqual({ percent: 25, tokens: 250_000 });
    expect((await app.http.get('/api/v1/rewards/allocation/?month=2025')).status).toBe(400);
  });
});
