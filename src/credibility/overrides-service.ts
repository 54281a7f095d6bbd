/**
 * Staff decisions on credibility flags and accounts (confirm, clear): the decision is put in force in
 * credibility_overrides, which every recompute reads (rules/weights.ts, rules/overrides.ts), and logged
 * in credibility_decisions (the public moderation log lists it); then the month's recompute is
 * enqueued so weights and boards follow. Before a month is frozen, ensureDecisionsApplied reruns the
 * recompute when a decision is newer than the latest finished run.
 */
import type { Db } from '../platform/db.js';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { ACCOUNT_KIND, FLAG_ID_PATTERN, flagPublicId } from './rules/overrides.js';
import { decisionAfterLastRun, flagsOfKind, membersOf, storeDecision, type Decision, type FlagRow } from './flags-queries.js';
import { recomputeMonth } from './service.js';

export const flagNotFound = (id: string) => new DomainError('credibility_flag_not_found', `no credibility flag has the id ${id}`, { flag_id: id });
export const accountNotFound = (id: number) => new DomainError('credibility_account_not_found', `no account has the id ${id}`, { account_id: id });

/** The flag a public id names, or null (also for an id of a well-formed shape that matches nothing). */
export async function findFlag(db: Db, id: string): Promise<FlagRow | null> {
  const m = FLAG_ID_PATTERN.exec(id);
  if (!m) return null;
  const rows = await flagsOfKind(db, m[1], m[2]);
  return rows.find((f) => flagPublicId(f) === id) ?? null;
}

interface DecideInput {
  decision: Decision;
  note: string | null;
  staffId: number;
}

type Deps = Pick<AppDeps, 'db' | 'queue'>;

async function decide(deps: Deps, target: { month: string; kind: string; members: number[] }, input: DecideInput) {
  const logged = await deps.db.transaction().execute((trx) => storeDecision(trx, { ...target, ...input }));
  await deps.queue.enqueue('credibility-recompute', { month: target.month }, { dedupeId: `credibility-recompute:${target.month}` });
  return logged;
}

/** Confirm or clear a detected flag (by its public id); credibility_flag_not_found (404) when none has it. */
export async function decideFlag(deps: Deps, flagId: string, input: DecideInput) {
  const flag = await findFlag(deps.db, flagId);
  if (!flag) throw flagNotFound(flagId);
  const logged = await decide(deps, { month: flag.month, kind: flag.kind, members: flag.members }, input);
  return { flag: { ...flag, decision: logged.decision, note: logged.note, decided_by: logged.decided_by, decided_at: logged.created_at }, logged };
}

/** Confirm or clear one account for a month; credibility_account_not_found (404) when it does not exist. */
export async function decideAccount(deps: Deps, userId: number, month: string, input: DecideInput) {
  if (!(await membersOf(deps.db, [userId])).has(userId)) throw accountNotFound(userId);
  return decide(deps, { month, kind: ACCOUNT_KIND, members: [userId] }, input);
}

/**
 * Before a month is frozen (after ensureMonthRecomputed): when a staff decision is newer than the
 * start of the month's latest finished recompute, run it again so the decision is in the weights;
 * credibility_recompute_pending (409) when another runner holds the run past `waitMs`.
 */
export async function ensureDecisionsApplied(db: Db, month: string, opts: { now?: Date; waitMs?: number; leaseS?: number } = {}): Promise<void> {
  const deadline = Date.now() + (opts.waitMs ?? 30_000);
  while (await decisionAfterLastRun(db, month)) {
    const r = await recomputeMonth(db, month, { now: opts.now, leaseS: opts.leaseS });
    if (r.status === 'finished') continue;
    if (Date.now() > deadline) {
      throw new DomainError('credibility_recompute_pending', `the credibility recompute of ${month} has not finished since the latest staff decision`, { month });
    }
    await new Promise((res) => setTimeout(res, 200));
  }
}
