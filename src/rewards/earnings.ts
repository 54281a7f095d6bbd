/**
 * The cached part of the earnings summary: a user's leaderboard positions in a month and the estimate
 * derived from them (spec: "Estimates are cached for 1 hour"). Key: <prefix>:earnings:<user>:<month>.
 */
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import type { Redis } from '../platform/redis.js';
import { allocationTokens, CATEGORIES, estimateEarnings, type Category } from './rules/rewards.js';
import { getSnapshot, userEntries } from './leaderboard-queries.js';
import { allocationFor, describeAllocation } from './queries.js';
import { creditReasons } from './credible-queries.js';
import { creditedShare } from './rules/credited.js';
import { earningsKey } from '../platform/redis-keys.js';

export const EARNINGS_CACHE_TTL_S = 3600;

interface Position {
  rank: number | null;
  market_share: number;
  activity_count: number;
  credited_score: number;
  credited_share: number | null;
}

interface EarningsEstimate {
  leaderboard_positions: Record<Category, Position>;
  credibility: { reasons: { reason: string; items: number }[] };
  estimated_squid: { total: number; breakdown: Record<Category, number>; based_on: string; note: string };
}

async function computeEarningsEstimate(db: Db, userId: number, month: string, now = new Date()): Promise<EarningsEstimate> {
  const [entries, snapshot, allocation, reasons] = await Promise.all([
    userEntries(db, month, userId),
    getSnapshot(db, month),
    allocationFor(db, month),
    creditReasons(db, month, userId),
  ]);
  const positions = Object.fromEntries(CATEGORIES.map((c) => [c, { rank: null, market_share: 0, activity_count: 0, credited_score: 0, credited_share: null }])) as Record<
    Category,
    Position
  >;
  const shares = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
  for (const e of entries) {
    if (!(CATEGORIES as readonly string[]).includes(e.board)) continue;
    const c = e.board as Category;
    positions[c] = {
      rank: e.rank,
      market_share: Math.round(e.market_share * 10_000) / 10_000,
      activity_count: Number(e.activity_count),
      credited_score: Math.round(e.score * 10_000) / 10_000,
      credited_share: creditedShare(c, Number(e.activity_count), e.score),
    };
    shares[c] = e.market_share;
  }
  const { total, breakdown } = estimateEarnings(allocationTokens(allocation.bp), shares);
  const snap = snapshot ? `leaderboard snapshot of ${snapshot.computed_at.toISOString()}` : 'no leaderboard snapshot yet for this month';
  return {
    leaderboard_positions: positions,
    credibility: { reasons },
    estimated_squid: {
      total,
      breakdown,
      based_on: `${describeAllocation(allocation)}; ${snap}`,
      note:
        'Estimate only: allocation * market_share / 100 per category with the shares so far this month. Shares change until the month ' +
        'closes (00:00 UTC on the 1st); the drop is then computed from the frozen leaderboard in exact 18-decimal units. ' +
        `Cached for 1 hour (computed ${now.toISOString()}).`,
    },
  };
}

export async function earningsEstimate(deps: { db: Db; redis: Redis; config: Config }, userId: number, month: string): Promise<EarningsEstimate> {
  const key = earningsKey(deps.config.QUEUE_PREFIX, userId, month);
  const hit = await deps.redis.get(key);
  const cached = hit ? (JSON.parse(hit) as Partial<EarningsEstimate>) : null;
  // Entries cached before the credibility fields existed are recomputed.
  if (cached?.credibility) return cached as EarningsEstimate;
  const fresh = await computeEarningsEstimate(deps.db, userId, month);
  await deps.redis.set(key, JSON.stringify(fresh), 'EX', EARNINGS_CACHE_TTL_S);
  return fresh;
}
