/**
 * Credibility use cases: the full recompute of a month (resumable: a run stages the weights user by
 * user with a cursor and publishes them in one transaction; a run killed midway is resumed by the
 * next call, which recomputes the same weights from the same activity as of the run's as_of and
 * stages only what is missing), and the guarantee the monthly distribution needs: a finished
 * recompute since the month ended.
 */
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import type { Weighted } from './rules/model.js';
import { monthBounds } from './rules/month.js';
import { applyOverrides } from './rules/overrides.js';
import { computeCredibility } from './rules/weights.js';
import { accountsOf, claimRun, createRun, finishedSince, latestRun, monthAuthored, monthVotes, overridesOf, publishRun, stageBatch } from './queries.js';

const LEASE_S = 120;
const USERS_PER_BATCH = 500;

interface RecomputeResult {
  month: string;
  runId: number;
  status: 'finished' | 'busy';
  resumed: boolean;
  weights: number;
  flags: number;
  ms: number;
}

interface RecomputeOptions {
  now?: Date;
  /** Called after each staged batch (the kill drill stops a run here). */
  afterBatch?: (cursor: number) => Promise<void> | void;
}

async function loadMonth(db: Db, month: string, asOf: Date) {
  const { start } = monthBounds(month);
  const [votes, authored, overrides] = await Promise.all([monthVotes(db, start, asOf), monthAuthored(db, start, asOf), overridesOf(db, month)]);
  const ids = [...new Set([...votes.map((v) => v.userId), ...authored.map((a) => a.userId), ...overrides.flatMap((o) => o.members)])];
  return { accounts: await accountsOf(db, ids), votes, authored, overrides };
}

/** Start a run, or take over the month's unfinished one; null when another runner holds its lease. */
async function openRun(db: Db, month: string, now: Date) {
  const last = await latestRun(db, month);
  if (last && !last.finished_at) {
    const claimed = await claimRun(db, last.id, LEASE_S);
    return claimed ? { run: claimed, resumed: true } : null;
  }
  const { end } = monthBounds(month);
  return { run: await createRun(db, month, now < end ? now : end, LEASE_S), resumed: false };
}

/** Full recompute of a month's weights and flags (the nightly job, the distribution, the drill). */
export async function recomputeMonth(db: Db, month: string, opts: RecomputeOptions = {}): Promise<RecomputeResult> {
  const t0 = performance.now();
  const opened = await openRun(db, month, opts.now ?? new Date());
  if (!opened) {
    const last = await latestRun(db, month);
    return { month, runId: last!.id, status: 'busy', resumed: false, weights: 0, flags: 0, ms: 0 };
  }
  const { run, resumed } = opened;
  const activity = await loadMonth(db, month, run.as_of);
  const detection = applyOverrides(computeCredibility(activity), activity.overrides);
  const byUser = new Map<number, Weighted[]>();
  for (const w of detection.weights) {
    const list = byUser.get(w.userId);
    if (list) list.push(w);
    else byUser.set(w.userId, [w]);
  }
  const users = [...byUser.keys()].filter((u) => u > run.cursor).sort((a, b) => a - b);
  for (let i = 0; i < users.length; i += USERS_PER_BATCH) {
    const chunk = users.slice(i, i + USERS_PER_BATCH);
    await stageBatch(
      db,
      run.id,
      chunk.flatMap((u) => byUser.get(u)!),
      chunk[chunk.length - 1],
    );
    await claimRun(db, run.id, LEASE_S, true);
    await opts.afterBatch?.(chunk[chunk.length - 1]);
  }
  const stats = { weights: detection.weights.length, flags: detection.flags.length, accounts: byUser.size };
  await publishRun(db, run, detection.flags, stats);
  return { month, runId: run.id, status: 'finished', resumed, weights: detection.weights.length, flags: detection.flags.length, ms: Math.round(performance.now() - t0) };
}

/**
 * Before a month is frozen: make sure a recompute finished after the month ended, running (or
 * resuming) one when none did. When another runner holds the month's run, wait for it up to
 * `waitMs`, then refuse with credibility_recompute_pending (409): the distribution never freezes a
 * month on weights that are not in place.
 */
export async function ensureMonthRecomputed(db: Db, month: string, opts: { now?: Date; waitMs?: number } = {}): Promise<void> {
  const { end } = monthBounds(month);
  const deadline = Date.now() + (opts.waitMs ?? 30_000);
  for (;;) {
    if (await finishedSince(db, month, end)) return;
    const r = await recomputeMonth(db, month, { now: opts.now });
    if (r.status === 'finished') return;
    if (Date.now() > deadline) {
      throw new DomainError('credibility_recompute_pending', `the credibility recompute of ${month} has not finished since the month ended`, { month });
    }
    await new Promise((res) => setTimeout(res, 200));
  }
}
