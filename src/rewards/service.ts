/**
 * Rewards use cases: recomputing a month's leaderboard snapshot and closing a month (the monthly
 * distribution). The leaderboards job, the monthly-distribution job, the CLI and the benches call
 * these; the SQL lives in leaderboard-queries.ts and queries.ts, the arithmetic in rules/.
 */
import { getAddress } from 'viem';
import { ensureDecisionsApplied, ensureMonthRecomputed } from '../credibility/index.js';
import type { Db } from '../platform/db.js';
import { buildDropTree } from './rules/reward-tree.js';
import { addMonths, CATEGORIES, computeDrops, monthOf, POOL_UNITS, type Category, type Participant } from './rules/rewards.js';
import {
  analyzeEntries,
  boardTotals,
  categoryEntries,
  ensureSnapshotRow,
  firstActivityAt,
  insertEntries,
  lockMonth,
  markSnapshotComputed,
  snapshotFrozenAt,
  snapshotStates,
  type ComputeResult,
} from './leaderboard-queries.js';
import { allocationFor, getDistribution, insertDistribution, insertDrops, type DistributionRow } from './queries.js';

/**
 * Recompute a month inside `trx` (which must be a transaction: the lock is transaction-scoped).
 * A frozen month is left alone unless `freeze` is the caller's own final pass.
 */
async function computeMonthIn(trx: Db, month: string, opts: { freeze?: boolean } = {}): Promise<ComputeResult> {
  const t0 = performance.now();
  await lockMonth(trx, month);
  const snap = await snapshotFrozenAt(trx, month);
  if (snap?.frozen_at) return { month, computed: false, frozen: true, entries: 0, ms: 0, totals: null };
  await ensureSnapshotRow(trx, month);
  const entries = await insertEntries(trx, month);
  await analyzeEntries(trx);
  const totals = await boardTotals(trx, month);
  const ms = Math.round(performance.now() - t0);
  await markSnapshotComputed(trx, month, { ms, totals, freeze: !!opts.freeze });
  return { month, computed: true, frozen: !!opts.freeze, entries, ms, totals };
}

/** Recompute one month in its own transaction. */
export async function computeMonth(db: Db, month: string): Promise<ComputeResult> {
  return db.transaction().execute((trx) => computeMonthIn(trx, month));
}

/** Months to recompute now (oldest first): missing snapshots since the first activity, the previous and the current month; never frozen ones. */
export async function monthsToCompute(db: Db, now: Date): Promise<string[]> {
  const current = monthOf(now);
  const previous = addMonths(current, -1);
  const states = new Map((await snapshotStates(db)).map((s) => [s.month, s]));
  const first = await firstActivityAt(db);
  const earliest = first && monthOf(first) < previous ? monthOf(first) : previous;
  const months: string[] = [];
  for (let m = earliest; m <= current; m = addMonths(m, 1)) {
    const s = states.get(m);
    if (s?.frozen_at) continue;
    if (!s || m >= previous) months.push(m);
  }
  return months;
}

/** The leaderboards job: `p.month` alone, or every month monthsToCompute names, each in its own transaction. */
export async function runLeaderboards(db: Db, p: { month?: string }, now = new Date()): Promise<ComputeResult[]> {
  const months = p.month ? [p.month] : await monthsToCompute(db, now);
  const out: ComputeResult[] = [];
  for (const m of months) out.push(await computeMonth(db, m));
  return out;
}

export interface DistributionSummary {
  month: string;
  status: 'distributed' | 'already_distributed' | 'month_not_over';
  merkle_root: string | null;
  recipients: number;
  total_distributed: string;
  pool_amount: string;
  allocation: Record<Category, { percent: number; amount: string }> | null;
  totals: Record<Category, { allocated: string; distributed: string; recipients: number }> | null;
  created_at: string | null;
}

function summaryOf(row: DistributionRow, status: DistributionSummary['status']): DistributionSummary {
  return {
    month: row.month,
    status,
    merkle_root: row.merkle_root,
    recipients: row.recipients,
    total_distributed: row.total_distributed,
    pool_amount: row.pool_amount,
    allocation: row.allocation as DistributionSummary['allocation'],
    totals: row.totals as DistributionSummary['totals'],
    created_at: row.created_at.toISOString(),
  };
}

const notOver = (month: string): DistributionSummary => ({
  month,
  status: 'month_not_over',
  merkle_root: null,
  recipients: 0,
  total_distributed: '0',
  pool_amount: POOL_UNITS.toString(),
  allocation: null,
  totals: null,
  created_at: null,
});

/** Freeze the month's snapshot, split the pool, build the tree and store distribution and drops (inside `trx`, under the month lock). */
async function freezeAndSplit(trx: Db, month: string): Promise<void> {
  await computeMonthIn(trx, month, { freeze: true });
  const allocation = await allocationFor(trx, month);
  const entries = await categoryEntries(trx, month);
  const boards = Object.fromEntries(CATEGORIES.map((c) => [c, [] as Participant[]])) as Record<Category, Participant[]>;
  const addressOf = new Map<number, string>();
  for (const e of entries) {
    // The credited score in millionths (equal to activity_count in months scored without credibility).
    boards[e.board as Category].push({ userId: e.user_id, weight: BigInt(Math.round(Number(e.score) * 1e6)) });
    addressOf.set(e.user_id, getAddress(e.wallet_address));
  }
  const { drops, totals, totalDistributed } = computeDrops(allocation.bp, boards);
  const tree = drops.length ? await buildDropTree(drops.map((d) => ({ address: addressOf.get(d.userId)!, amount: d.amount }))) : null;
  const allocationJson = Object.fromEntries(CATEGORIES.map((c) => [c, { percent: allocation.bp[c] / 100, amount: totals[c].allocated.toString() }]));
  const totalsJson = Object.fromEntries(
    CATEGORIES.map((c) => [c, { allocated: totals[c].allocated.toString(), distributed: totals[c].distributed.toString(), recipients: totals[c].recipients }]),
  );
  await insertDistribution(trx, {
    month,
    merkleRoot: tree?.root ?? null,
    totalDistributed,
    recipients: drops.length,
    allocation: { ...allocationJson, source: allocation.source, from_month: allocation.from_month },
    totals: totalsJson,
  });
  await insertDrops(
    trx,
    month,
    drops.map((d, j) => ({ address: addressOf.get(d.userId)!, userId: d.userId, amount: d.amount, breakdown: d.breakdown, proof: tree!.proofs[j] })),
  );
}

/**
 * Close `month`: under the month's advisory lock, recompute and freeze its leaderboard snapshot,
 * split each category's allocation exactly (src/rewards/rules/rewards.ts), build the Merkle tree of
 * (address, total amount) and store the distribution, every drop and its proof, all in one
 * transaction. Idempotent: a month that already has a distribution is returned unchanged; two runs at
 * once queue on the lock and the second finds the first's result. `now` only decides whether the
 * month is over. Before freezing, the month's credibility recompute must have finished since the
 * month ended: it is run (or resumed) here when it has not, and the distribution refuses with
 * credibility_recompute_pending (409) while another runner holds it past the wait (`recomputeWaitMs`,
 * default 30 s). A staff decision (confirm or clear) newer than that run's start is applied by one
 * more recompute first, so a confirmed ring loses the month's share before it is frozen.
 */
export async function distributeMonth(db: Db, month: string, now: Date = new Date(), opts: { recomputeWaitMs?: number; leaseS?: number } = {}): Promise<DistributionSummary> {
  if (addMonths(month, 1) > `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`) return notOver(month);
  const done = await getDistribution(db, month);
  if (done) return summaryOf(done, 'already_distributed');
  await ensureMonthRecomputed(db, month, { now, waitMs: opts.recomputeWaitMs, leaseS: opts.leaseS });
  await ensureDecisionsApplied(db, month, { now, waitMs: opts.recomputeWaitMs, leaseS: opts.leaseS });
  return db.transaction().execute(async (trx) => {
    await lockMonth(trx, month);
    const existing = await getDistribution(trx, month);
    if (existing) return summaryOf(existing, 'already_distributed');
    await freezeAndSplit(trx, month);
    const row = await getDistribution(trx, month);
    return summaryOf(row!, 'distributed');
  });
}
