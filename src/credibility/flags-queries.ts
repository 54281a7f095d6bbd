/**
 * Credibility SQL for staff: a month's flags with the decision in force, staff decisions (the
 * overrides the recompute reads and the log of every decision), the accounts named in a flag, and
 * what the distribution gate compares (the latest decision and the latest finished run).
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';

export type Decision = 'confirmed' | 'cleared';
/** open: no decision in force. */
export type DecisionFilter = Decision | 'open';

export interface FlagRow {
  month: string;
  kind: string;
  members: number[];
  evidence: Record<string, number | string>;
  created_at: Date;
  decision: Decision | null;
  note: string | null;
  decided_by: number | null;
  decided_at: Date | null;
}

function flagsOf(db: Db, month: string, f: { kind?: string; decision?: DecisionFilter }) {
  let q = db
    .selectFrom('credibility_flags as f')
    .leftJoin('credibility_overrides as o', (j) => j.onRef('o.month', '=', 'f.month').onRef('o.kind', '=', 'f.kind').onRef('o.members', '=', 'f.members'))
    .where('f.month', '=', month);
  if (f.kind) q = q.where('f.kind', '=', f.kind);
  if (f.decision === 'open') q = q.where('o.decision', 'is', null);
  else if (f.decision) q = q.where('o.decision', '=', f.decision);
  return q;
}

const FLAG_COLUMNS = ['f.month', 'f.kind', 'f.members', 'f.evidence', 'f.created_at', 'o.decision', 'o.note', 'o.decided_by', 'o.decided_at'] as const;

/** One page of a month's flags (detector order: kind, then members), with the decision in force. */
export async function flagPage(db: Db, month: string, f: { kind?: string; decision?: DecisionFilter }, page: number, perPage: number) {
  const [rows, count] = await Promise.all([
    flagsOf(db, month, f)
      .select(FLAG_COLUMNS)
      .orderBy('f.kind')
      .orderBy('f.id')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    flagsOf(db, month, f)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as unknown as FlagRow[], count: Number(count.n) };
}

/** The month's flags of one kind (the public id is checked by the caller). */
export async function flagsOfKind(db: Db, month: string, kind: string): Promise<FlagRow[]> {
  return (await flagsOf(db, month, { kind }).select(FLAG_COLUMNS).orderBy('f.id').execute()) as unknown as FlagRow[];
}

/** The month's flags an account belongs to. */
export async function flagsOfAccount(db: Db, month: string, userId: number): Promise<FlagRow[]> {
  return (await flagsOf(db, month, {})
    .select(FLAG_COLUMNS)
    .where(sql<boolean>`${userId}::int = ANY(f.members)`)
    .orderBy('f.kind')
    .orderBy('f.id')
    .execute()) as unknown as FlagRow[];
}

export interface MemberRow {
  id: number;
  username: string | null;
  wallet_address: string;
  account_type: string;
  created_at: Date;
}

export async function membersOf(db: Db, ids: number[]): Promise<Map<number, MemberRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'username', 'wallet_address', 'account_type', 'created_at']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r as MemberRow]));
}

interface DecisionInput {
  month: string;
  kind: string;
  members: number[];
  decision: Decision;
  note: string | null;
  staffId: number;
}

/** Put the decision in force (replacing an earlier one on the same flag) and log it; returns the log row. */
export async function storeDecision(trx: Db, d: DecisionInput) {
  await trx
    .insertInto('credibility_overrides')
    .values({ month: d.month, kind: d.kind, members: d.members, decision: d.decision, note: d.note, decided_by: d.staffId })
    .onConflict((oc) => oc.columns(['month', 'kind', 'members']).doUpdateSet({ decision: d.decision, note: d.note, decided_by: d.staffId, decided_at: sql<Date>`now()` }))
    .execute();
  return trx
    .insertInto('credibility_decisions')
    .values({ month: d.month, kind: d.kind, members: d.members, decision: d.decision, note: d.note, decided_by: d.staffId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The decision in force on one account (kind `account`). */
export async function accountOverride(db: Db, month: string, userId: number) {
  return db
    .selectFrom('credibility_overrides')
    .select(['decision', 'note', 'decided_by', 'decided_at'])
    .where('month', '=', month)
    .where('kind', '=', 'account')
    .where(sql<boolean>`members = ARRAY[${userId}::int]`)
    .executeTakeFirst();
}

/** An account's items of the month below full weight, counted per reason. */
export async function accountReasons(db: Db, month: string, userId: number) {
  const r = await sql<{ kind: string; reason: string; items: number }>`
    SELECT cw.kind, r AS reason, count(*)::int AS items
    FROM credibility_weights cw, unnest(cw.reasons) r
    WHERE cw.month = ${month} AND cw.user_id = ${userId}
    GROUP BY cw.kind, r ORDER BY cw.kind, items DESC, r`.execute(db);
  return r.rows;
}

/**
 * Whether a staff decision on the month is newer than the start of its latest finished recompute
 * (a run reads the decisions when it starts; one started before a decision does not reflect it).
 */
export async function decisionAfterLastRun(db: Db, month: string): Promise<boolean> {
  const r = await sql<{ stale: boolean }>`
    SELECT EXISTS (
      SELECT 1 FROM credibility_decisions d
      WHERE d.month = ${month}
        AND d.created_at >= coalesce((SELECT max(started_at) FROM credibility_runs WHERE month = ${month} AND finished_at IS NOT NULL), '-infinity')
    ) AS stale`.execute(db);
  return r.rows[0].stale;
}
