import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { beforeAll, describe, expect, it } from 'vitest';
import { runLeaderboards } from '../../jobs/leaderboards.js';
import { addMonths, monthOf, monthRange } from '../../src/rewards/rules/rewards.js';
import { setAllocation } from '../../src/rewards/queries.js';
import { distributeMonth } from '../../src/rewards/service.js';
import type { Session } from '../support/auth.js';
import { useTestApp } from '../support/app.js';
import { insertArticle } from '../support/articles.js';

const app = useTestApp({ me: { username: 'earner' }, rival: {}, idle: {} });
const now = new Date();
const current = monthOf(now);
const previous = addMonths(current, -1);

const approved = (by: Session, when: Date) => insertArticle(app.deps.db, { submittedBy: by.userId, createdAt: when, publishedAt: when });
async function vote(u: Session, articleId: number, when: Date) {
  await app.deps.db.insertInto('votes').values({ article_id: articleId, user_id: u.userId, weight: 1, created_at: when }).execute();
}

const earnings = (s: Session) => app.http.get('/api/v1/wallet/me/earnings/', s.bearer);

beforeAll(async () => {
  // Early in the month, so the test holds at any time of the month.
  const thisMonth = new Date(monthRange(current).start.getTime() + 10_000);
  // This month: posters me 1, rival 3 (25% / 75%); voters me 1 vote (100%).
  const mine = await approved(app.me, thisMonth);
  const theirs = await approved(app.rival, thisMonth);
  await approved(app.rival, thisMonth);
  await approved(app.rival, thisMonth);
  await vote(app.me, theirs, thisMonth);
  await vote(app.rival, mine, new Date(thisMonth.getTime() - 1)); // rival also votes once: voters 50/50
  await runLeaderboards(app.deps.db, { month: current });
  await setAllocation(app.deps.db, current, { top_posters: 4000, top_yappers: 3000, top_voters: 2000, top_editors: 1000 }, null);
  // Last month: me alone, then closed.
  const prevDate = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15));
  await approved(app.me, prevDate);
  await distributeMonth(app.deps.db, previous);
});

describe('GET /wallet/me/earnings/', () => {
  it('reports positions and the estimate allocation * market_share / 100 per category', async () => {
    const r = await earnings(app.me);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['current_month', 'estimated_squid', 'leaderboard_positions', 'recent_drops', 'user']);
    expect(r.body.user).toEqual({ id: app.me.userId, username: 'earner', ethereum_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
    expect(r.body.user.ethereum_address.toLowerCase()).toBe(app.me.address);
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
    const r = await earnings(app.idle);
    for (const p of Object.values(r.body.leaderboard_positions)) expect(p).toEqual({ rank: null, market_share: 0, activity_count: 0 });
    expect(r.body.estimated_squid.total).toBe(0);
    expect(r.body.recent_drops).toEqual([]);
  });

  it('caches positions and estimate for one hour in Redis', async () => {
    const key = `${app.deps.config.QUEUE_PREFIX}:earnings:${app.rival.userId}:${current}`;
    const first = await earnings(app.rival);
    expect(first.body.leaderboard_positions.top_posters).toMatchObject({ rank: 1, market_share: 75 });
    const ttl = await app.deps.redis.ttl(key);
    expect(ttl).toBeGreaterThan(3590);
    expect(ttl).toBeLessThanOrEqual(3600);
    // New activity and a new snapshot: the cached answer stands until it expires.
    await approved(app.idle, new Date(monthRange(current).start.getTime() + 20_000));
    await runLeaderboards(app.deps.db, { month: current });
    expect((await earnings(app.rival)).body.leaderboard_positions.top_posters.market_share).toBe(75);
    await app.deps.redis.del(key);
    expect((await earnings(app.rival)).body.leaderboard_positions.top_posters.market_share).toBe(60);
  });

  it('recent_drops carry amount, breakdown, root and a proof that verifies', async () => {
    const r = await earnings(app.me);
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
    const r = await app.http.get('/api/v1/wallet/me/earnings/');
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('auth_required');
  });
});
