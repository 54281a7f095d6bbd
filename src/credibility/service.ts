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
/** Rows per staging transaction (whole users: a batch ends at the user that reaches it). */
const STAGE_ROWS = 20_000;

interface RecomputeResult {
  month: string;
  runId: number;
  status: 'finished' | 'busy';
  resumed: boolean;
  weights: number;
  flags: number;
  ms: number;
  /** Wall time of each phase: read of the month, detection, staging, publication. */
  phases?: { readMs: number; detectMs: number; stageMs: number; publishMs: number };
}

interface RecomputeOptions {
  now?: Date;
  /** The run's lease in seconds (CREDIBILITY_RUN_LEASE_S; default 120). */
  leaseS?: number;
  /** When another runner holds the month's run: wait up to this long for its lease to run out and take it over (default: answer busy at once). */
  waitMs?: number;
  /** Called after each staged batch. */
  afterBatch?: (cursor: number) => Promise<void> | void;
}

async function loadMonth(db: Db, month: string, asOf: Date) {
  const { start } = monthBounds(month);
  const [votes, authored, overrides] = await Promise.all([monthVotes(db, start, asOf), monthAuthored(db, start, asOf), overridesOf(db, month)]);
  const ids = [...new Set([...votes.map((v) => v.userId), ...authored.map((a) => a.userId), ...overrides.flatMap((o) => o.members)])];
  return { accounts: await accountsOf(db, ids), votes, authored, overrides };
}

/** Start a run, or take over the month's unfinished one; null when another runner holds its lease. */
async function openRun(db: Db, month: string, now: Date, leaseS: number) {
  const last = await latestRun(db, month);
  if (last && !last.finished_at) {
    const claimed = await claimRun(db, last.id, leaseS);
    return claimed ? { run: claimed, resumed: true } : null;
  }
  const { end } = monthBounds(month);
  return { run: await createRun(db, month, now < end ? now : end, leaseS), resumed: false };
}

/** openRun, polling once a second while another runner holds the run, for up to `waitMs`. */
async function openRunWaiting(db: Db, month: string, now: Date, leaseS: number, waitMs: number) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const opened = await openRun(db, month, now, leaseS);
    if (opened || Date.now() >= deadline) return opened;
    await new Promise((res) => setTimeout(res, Math.min(1000, deadline - Date.now())));
  }
}

/** Full recompute of a month's weights and flags (the nightly job, the distribution, the drill). */
export async function recomputeMonth(db: Db, month: string, opts: RecomputeOptions = {}): Promise<RecomputeResult> {
  const t0 = performance.now();
  const leaseS = opts.leaseS ?? LEASE_S;
  const opened = await openRunWaiting(db, month, opts.now ?? new Date(), leaseS, opts.waitMs ?? 0);
  if (!opened) {
    const last = await latestRun(db, month);
    return { month, runId: last!.id, status: 'busy', resumed: false, weights: 0, flags: 0, ms: 0 };
  }
  const { run, resumed } = opened;
  const lap = laps();
  const activity = await loadMonth(db, month, run.as_of);
  const readMs = lap();
  const detection = applyOverrides(computeCredibility(activity), activity.overrides);
  const detectMs = lap();
  const byUser = new Map<number, Weighted[]>();
  for (const w of detection.weights) {
    const list = byUser.get(w.userId);
    if (list) list.push(w);
    else byUser.set(w.userId, [w]);
  }
  const users = [...byUser.keys()].filter((u) => u > run.cursor).sort((a, b) => a - b);
  for (const batch of batches(users, byUser)) {
    await stageBatch(db, run.id, batch.weights, batch.cursor, leaseS);
    await opts.afterBatch?.(batch.cursor);
  }
  const stageMs = lap();
  const stats = { weights: detection.weights.length, flags: detection.flags.length, accounts: byUser.size };
  if (!(await publishRun(db, run, detection.flags, stats))) {
    return { month, runId: run.id, status: 'busy', resumed, weights: 0, flags: 0, ms: Math.round(performance.now() - t0) };
  }
  const phases = { readMs, detectMs, stageMs, publishMs: lap() };
  return { month, runId: run.id, status: 'finished', resumed, weights: detection.weights.length, flags: detection.flags.length, ms: Math.round(performance.now() - t0), phases };
}

/** The users' weights in batches of whole users, about STAGE_ROWS rows each; `cursor` is a batch's last user. */
function* batches(users: number[], byUser: Map<number, Weighted[]>): Generator<{ weights: Weighted[]; cursor: number }> {
  let weights: Weighted[] = [];
  for (let i = 0; i < users.length; i++) {
    for (const w of byUser.get(users[i])!) weights.push(w);
    if (weights.length >= STAGE_ROWS || i === users.length - 1) {
      yield { weights, cursor: users[i] };
      weights = [];
    }
  }
}

/** Milliseconds since the previous call (or since laps() was called), rounded. */
function laps(): () => number {
  let last = performance.now();
  return () => {
    const now = performance.now();
    const ms = Math.round(now - last);
    last = now;
    return ms;
  };
}

/**
 * Before a month is frozen: make sure a recompute finished after the month ended, running (or
 * resuming) one when none did. When another runner holds the month's run, wait for it up to
 * `waitMs`, then refuse with credibility_recompute_pending (409): the distribution never freezes a
 * month on weights that are not in place.
 */
export async function ensureMonthRecomputed(db: Db, month: string, opts: { now?: Date; waitMs?: number; leaseS?: number } = {}): Promise<void> {
  const { end } = monthBounds(month);
  const deadline = Date.now() + (opts.waitMs ?? 30_000);
  for (;;) {
    if (await finishedSince(db, month, end)) return;
    const r = await recomputeMonth(db, month, { now: opts.now, leaseS: opts.leaseS });
    if (r.status === 'finished') return;
    if (Date.now() > deadline) {
      throw new DomainError('credibility_recompute_pending', `the credibility recompute of ${month} has not finished since the month ended`, { month });
    }
    await new Promise((res) => setTimeout(res, 200));
  }
}
