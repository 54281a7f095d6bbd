/**
 * Reward arithmetic (spec: Reward rules). Pure: no I/O.
 *
 *  - The monthly pool is 1,000,000 tokens. The DAO splits it among the four categories; the split is
 *    kept in basis points (sum 10,000), so a category's allocation is always a whole number of tokens
 *    (1,000,000 * bp / 10,000 = 100 * bp).
 *  - Default split when no DAO vote was ever recorded: 25% to each category.
 *  - Estimate: category_allocation * (market_share / 100), per category, rounded to 6 decimals.
 *  - Distribution: token amounts are integers in base units (18 decimals). Within a category each
 *    participant receives floor(allocation * activity / total_activity); the units left over by the
 *    floors (fewer than the number of participants) go one each to the participants with the largest
 *    remainders (Hamilton / largest-remainder method); ties go to the larger activity, then to the
 *    lower user id. So every category with at least one participant pays out exactly its allocation.
 *    A category nobody took part in pays out nothing (its allocation stays undistributed).
 */
import { formatUnits } from 'viem';

export const CATEGORIES = ['top_posters', 'top_yappers', 'top_voters', 'top_editors'] as const;
export type Category = (typeof CATEGORIES)[number];
export const BOARDS = [...CATEGORIES, 'engagement'] as const;
export type Board = (typeof BOARDS)[number];

const REWARD_POOL_TOKENS = 1_000_000;
export const TOKEN_DECIMALS = 18;
export const TOKEN_UNIT = 10n ** BigInt(TOKEN_DECIMALS);
export const POOL_UNITS = BigInt(REWARD_POOL_TOKENS) * TOKEN_UNIT;

export type AllocationBp = Record<Category, number>;
export const DEFAULT_ALLOCATION_BP: AllocationBp = { top_posters: 2500, top_yappers: 2500, top_voters: 2500, top_editors: 2500 };

// ---------------------------------------------------------------------------------------------
// Months (UTC). A month is written "YYYY-MM".

export const MONTH_PATTERN = /^(\d{4})-(0[1-9]|1[0-2])$/;

interface Month {
  year: number;
  /** 1..12 */
  month: number;
}

function parseMonth(s: string): Month {
  const m = MONTH_PATTERN.exec(s);
  if (!m) throw new RangeError(`not a month (YYYY-MM): ${s}`);
  return { year: Number(m[1]), month: Number(m[2]) };
}

function formatMonth(m: Month): string {
  return `${String(m.year).padStart(4, '0')}-${String(m.month).padStart(2, '0')}`;
}

export function monthOf(date: Date): string {
  return formatMonth({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 });
}

export function addMonths(month: string, n: number): string {
  const { year, month: mo } = parseMonth(month);
  const idx = year * 12 + (mo - 1) + n;
  return formatMonth({ year: Math.floor(idx / 12), month: (idx % 12) + 1 });
}

/** [start, end) of the month in UTC. */
export function monthRange(month: string): { start: Date; end: Date } {
  const { year, month: mo } = parseMonth(month);
  return { start: new Date(Date.UTC(year, mo - 1, 1)), end: new Date(Date.UTC(year, mo, 1)) };
}

/** A small integer per month (for advisory-lock keys): months since year 0. */
export function monthIndex(month: string): number {
  const { year, month: mo } = parseMonth(month);
  return year * 12 + (mo - 1);
}

// ---------------------------------------------------------------------------------------------
// Allocation

/** "40", "12.5" or "12.34" percent -> basis points; null when not a percentage with at most 2 decimals in 0..100. */
export function percentToBp(s: string): number | null {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(s.trim().replace(/%$/, ''));
  if (!m) return null;
  const bp = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return bp <= 10_000 ? bp : null;
}

export function validateAllocation(bp: AllocationBp): string | null {
  for (const c of CATEGORIES) {
    if (!Number.isInteger(bp[c]) || bp[c] < 0 || bp[c] > 10_000) return `${c} must be between 0 and 100 percent`;
  }
  const sum = CATEGORIES.reduce((s, c) => s + bp[c], 0);
  return sum === 10_000 ? null : `the four categories must add up to 100 percent (they add up to ${sum / 100})`;
}

/** Whole tokens per category. */
export function allocationTokens(bp: AllocationBp): Record<Category, number> {
  return Object.fromEntries(CATEGORIES.map((c) => [c, (REWARD_POOL_TOKENS * bp[c]) / 10_000])) as Record<Category, number>;
}

/** Base units (18 decimals) per category; they add up to exactly the pool. */
export function allocationUnits(bp: AllocationBp): Record<Category, bigint> {
  return Object.fromEntries(CATEGORIES.map((c) => [c, (POOL_UNITS * BigInt(bp[c])) / 10_000n])) as Record<Category, bigint>;
}

// ---------------------------------------------------------------------------------------------
// Estimate

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * The earnings estimate: per category `allocation * (market_share / 100)`, rounded to 6 decimals;
 * total is the sum of the rounded breakdown.
 */
export function estimateEarnings(tokens: Record<Category, number>, marketShare: Record<Category, number>) {
  const breakdown = Object.fromEntries(CATEGORIES.map((c) => [c, round6(tokens[c] * ((marketShare[c] ?? 0) / 100))])) as Record<Category, number>;
  const total = round6(CATEGORIES.reduce((s, c) => s + breakdown[c], 0));
  return { total, breakdown };
}

// ---------------------------------------------------------------------------------------------
// Exact distribution

export interface Participant {
  userId: number;
  /** Integer activity (the category's measure); participants with weight <= 0 receive nothing. */
  weight: bigint;
}

/** Split `total` base units among participants in proportion to weight; the parts add up to `total` exactly (see header). */
export function splitExact(total: bigint, participants: Participant[]): Map<number, bigint> {
  const out = new Map<number, bigint>();
  const eligible = participants.filter((p) => p.weight > 0n);
  const sum = eligible.reduce((s, p) => s + p.weight, 0n);
  if (sum === 0n || total <= 0n) return out;
  const parts = eligible.map((p) => ({ p, base: (total * p.weight) / sum, rem: (total * p.weight) % sum }));
  let left = total - parts.reduce((s, x) => s + x.base, 0n);
  parts.sort((a, b) => (a.rem !== b.rem ? (a.rem > b.rem ? -1 : 1) : a.p.weight !== b.p.weight ? (a.p.weight > b.p.weight ? -1 : 1) : a.p.userId - b.p.userId));
  for (const x of parts) {
    let amount = x.base;
    if (left > 0n) {
      amount += 1n;
      left -= 1n;
    }
    if (amount > 0n) out.set(x.p.userId, (out.get(x.p.userId) ?? 0n) + amount);
  }
  return out;
}

interface CategoryTotals {
  allocated: bigint;
  distributed: bigint;
  recipients: number;
}

interface UserDrop {
  userId: number;
  amount: bigint;
  breakdown: Record<Category, bigint>;
}

/** Every user's drop for the month from the frozen boards and the month's allocation. */
export function computeDrops(bp: AllocationBp, boards: Record<Category, Participant[]>) {
  const units = allocationUnits(bp);
  const drops = new Map<number, UserDrop>();
  const totals = {} as Record<Category, CategoryTotals>;
  for (const c of CATEGORIES) {
    const split = splitExact(units[c], boards[c] ?? []);
    let distributed = 0n;
    for (const [userId, amount] of split) {
      let d = drops.get(userId);
      if (!d) {
        d = { userId, amount: 0n, breakdown: { top_posters: 0n, top_yappers: 0n, top_voters: 0n, top_editors: 0n } };
        drops.set(userId, d);
      }
      d.breakdown[c] += amount;
      d.amount += amount;
      distributed += amount;
    }
    totals[c] = { allocated: units[c], distributed, recipients: split.size };
  }
  const list = [...drops.values()].sort((a, b) => a.userId - b.userId);
  const totalDistributed = list.reduce((s, d) => s + d.amount, 0n);
  return { drops: list, totals, totalDistributed };
}

/** Base units as a decimal token string ("1234.5"). */
export function formatTokens(units: bigint): string {
  return formatUnits(units, TOKEN_DECIMALS);
}
