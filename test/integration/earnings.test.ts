import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLeaderboards } from '../../jobs/leaderboards.js';
import { createApp } from '../../src/app.js';
import { addMonths, monthOf, monthRange } from '../../src/rewards/rules/rewards.js';
import { setAllocation } from '../../src/rewards/queries.js';
import { distributeMonth } from '../../src/rewards/service.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let me: Session;
let rival: Session;
let idle: Session;
const now = new Date();
const current = monthOf(now);
const previous = addMonths(current, -1);
let n = 0;

async function approved(by: Session, when: Date) {
  n++;
  return (
    await deps.db
      .insertInto('articles')
      .values({
        slug: `e${n}`,
        headline: `E ${n}`,
        url: `https://e.org/${n}`,
        normalized_url: `https://e.org/${n}`,
        status: 'approved',
        submitted_by: by.userId,
        created_at: when,
        published_at: when,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;
}
async function vote(u: Session, articleId: number, when: Date) {
  await deps.db.insertInto('votes').values({ article_id: articleId, user_id: u.userId, weight: 1, created_at: when }).execute();
}

const earnings = (s: Session) => http.get('/api/v1/wallet/me/earnings/', s.bearer);

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  me = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'earner' });
  rival = await sessionFor(deps.db, deps.config.JWT_SECRET);
  idle = await sessionFor(deps.db, deps.config.JWT_SECRET);
  // Early in the month, so the test holds at any time of the month.
  const thisMonth = new Date(monthRange(current).start.getTime() + 10_000);
  // This month: posters me 1, rival 3 (25% / 75%); voters me 1 vote (100%).
  const mine = await approved(me, thisMonth);
  const theirs = await approved(rival, thisMonth);
  await approved(rival, thisMonth);
  await approved(rival, thisMonth);
  await vote(me, theirs, thisMonth);
  await vote(rival, mine, new Date(thisMonth.getTime() - 1)); // rival also votes once: voters 50/50
  await runLeaderboards(deps.db, { month: current });
  await setAllocation(deps.db, current, { top_posters: 4000, top_yappers: 3000, top_voters: 2000, top_editors: 1000 }, null);
  // Last month: me alone, then closed.
  const prevDate = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
  await approved(me, prevDate);
  await distributeMonth(deps.db, previous);
});
afterAll(() => deps.close());

describe('GET /wallet/me/earnings/', () => {
  it('reports positions and the estimate allocation * market_share / 100 per category', async () => {
    const r = await earnings(me);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['current_month', 'estimated_squid', 'leaderboard_positions', 'recent_drops', 'user']);
    expect(r.body.user).toEqual({ id: me.userId, username: 'earner', ethereum_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
    expect(r.body.user.ethereum_address.toLowerCase()).toBe(me.address);
    expect(r.body.current_month).toEqual({ month: now.getUTCMonth() + 1, year: now.getUTCFullYear() });
    expect(r.body.leaderboard_positions).toEqual({
      top_posters: { rank: 2, market_share: 25, activity_count: 1 },
      top_yappers: { rank: null, market_share: 0, activity_count: 0 },
      top_voters: { rank: 1, market_share: 50, activity_count: 1 },
      top_editors: { rank: null, market_share: 0, activity_count: 0 },
    });
    // posters 400,000 * 25% + voters 200,000 * 50%
    expect(r.body.estimated_squid.breakdown).toEqual({ top_posters: 100_000, top_yappers: 0, top_voters: 100_000, top_editors: 0 });
    expect(r.body.estimated_squid.total).toBe(200_000);
    expect(r.body.estimated_squid.based_on).toContain(`DAO vote of ${previous} for ${current}`);
    expect(r.body.estimated_squid.based_on).toContain('top_posters 40% (400,000)');
    expect(r.body.estimated_squid.note).toMatch(/Estimate/);
  });

  it('a user with no activity has null ranks and a zero estimate', async () => {
    const r = await earnings(idle);
    for (const p of Object.values(r.body.leaderboard_positions)) expect(p).toEqual({ rank: null, market_share: 0, activity_count: 0 });
    expect(r.body.estimated_squid.total).toBe(0);
    expect(r.body.recent_drops).toEqual([]);
  });

  it('caches positions and estimate for one hour in Redis', async () => {
    const key = `${deps.config.QUEUE_PREFIX}:earnings:${rival.userId}:${current}`;
    const first = await earnings(rival);
    expect(first.body.leaderboard_positions.top_posters).toMatchObject({ rank: 1, market_share: 75 });
    const ttl = await deps.redis.ttl(key);
    expect(ttl).toBeGreaterThan(3590);
    expect(ttl).toBeLessThanOrEqual(3600);
    // New activity and a new snapshot: the cached answer stands until it expires.
    await approved(idle, new Date(monthRange(current).start.getTime() + 20_000));
    await runLeaderboards(deps.db, { month: current });
    expect((await earnings(rival)).body.leaderboard_positions.top_posters.market_share).toBe(75);
    await deps.redis.del(key);
    expect((await earnings(rival)).body.leaderboard_positions.top_posters.market_share).toBe(60);
  });

  it('recent_drops carry amount, breakdown, root and a proof that verifies', async () => {
    const r = await earnings(me);
    expect(r.body.recent_drops).toHaveLength(1);
    const d = r.body.recent_drops[0];
    expect(Object.keys(d).sort()).toEqual(['address', 'amount', 'amount_squid', 'breakdown', 'distributed_at', 'merkle_root', 'month', 'proof']);
    expect(d.month).toBe(previous);
    // Alone on posters last month, with the default split (25%): 250,000 tokens.
    expect(d.amount).toBe((250_000n * 10n ** 18n).toString());
    expect(d.amount_squid).toBe('250000');
    expect(d.breakdown).toEqual({ top_posters: d.amount, top_yappers: '0', top_voters: '0', top_editors: '0' });
    expect(StandardMerkleTree.verify(d.merkle_root, ['address', 'uint256'], [d.address, d.amount], d.proof)).toBe(true);
  });

  it('needs credentials', async () => {
    const r = await http.get('/api/v1/wallet/me/earnings/');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('auth_required');
  });
});
