/**
 * Credibility SQL: the month's activity the detector reads, the runs of the full recompute, the
 * staged and published weights, flags and staff overrides.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../platform/db.js';
import type { Account, Authored, Flag, Override, Vote, Weighted } from './rules/model.js';

/**
 * A timestamp as the milliseconds since the epoch that node-postgres's Date for it holds (whole
 * seconds, plus the microseconds truncated to milliseconds the same way), read as a plain number: a
 * month of votes is parsed without a Date per row.
 */
const epochMs = (col: RawBuilder<unknown>) =>
  sql<number>`(floor(extract(epoch FROM ${col}))::float8 * 1000 + trunc(1000 * ((extract(microseconds FROM ${col})::bigint % 1000000)::float8 / 1000000)))`;

/**
 * Every vote cast in [start, asOf) on someone else's article or yap. The click-through is a LEFT
 * JOIN (one hash join over the readers, not one index probe per vote).
 */
export async function monthVotes(db: Db, start: Date, asOf: Date): Promise<Vote[]> {
  const r = await sql<{ yap: boolean; target_id: number; user_id: number; value: 1 | -1; at: number; author_id: number | null; clicked: boolean }>`
    SELECT false AS yap, v.article_id AS target_id, v.user_id, v.weight AS value, ${epochMs(sql.ref('v.created_at'))} AS at, a.submitted_by AS author_id,
           r.user_id IS NOT NULL AS clicked
    FROM votes v JOIN articles a ON a.id = v.article_id
    LEFT JOIN article_readers r ON r.article_id = v.article_id AND r.user_id = v.user_id
    WHERE v.created_at >= ${start} AND v.created_at < ${asOf} AND a.submitted_by IS DISTINCT FROM v.user_id
    UNION ALL
    SELECT true, yv.yap_id, yv.user_id, yv.weight, ${epochMs(sql.ref('yv.created_at'))}, y.user_id, false
    FROM yap_votes yv JOIN yaps y ON y.id = yv.yap_id
    WHERE yv.created_at >= ${start} AND yv.created_at < ${asOf} AND yv.user_id <> y.user_id`.execute(db);
  return r.rows.map((v) => ({
    kind: v.yap ? 'yap_vote' : 'article_vote',
    targetId: v.target_id,
    userId: v.user_id,
    value: v.value,
    at: v.at,
    authorId: v.author_id,
    clicked: v.clicked,
  }));
}

/** Yaps written and submissions that went live in [start, asOf), with the editor who reviewed each submission. */
export async function monthAuthored(db: Db, start: Date, asOf: Date): Promise<Authored[]> {
  const r = await sql<{ kind: 'yap' | 'submission'; target_id: number; user_id: number; at: Date; reviewed_by: number | null }>`
    SELECT 'yap' AS kind, id AS target_id, user_id, created_at AS at, NULL::int AS reviewed_by
    FROM yaps WHERE created_at >= ${start} AND created_at < ${asOf}
    UNION ALL
    SELECT 'submission', a.id, a.submitted_by, coalesce(a.published_at, a.reviewed_at, a.created_at),
           (SELECT e.editor_id FROM article_edits e WHERE e.article_id = a.id AND e.changes -> 'status' ->> 'from' = 'submitted'
            ORDER BY e.created_at LIMIT 1)
    FROM articles a
    WHERE a.status = 'approved' AND a.submitted_by IS NOT NULL
      AND coalesce(a.published_at, a.reviewed_at, a.created_at) >= ${start} AND coalesce(a.published_at, a.reviewed_at, a.created_at) < ${asOf}`.execute(db);
  return r.rows.map((a) => ({ kind: a.kind, targetId: a.target_id, userId: a.user_id, at: a.at.getTime(), reviewedBy: a.reviewed_by }));
}

/** The accounts with these ids, with their hashed sign-in fingerprints. */
export async function accountsOf(db: Db, ids: number[]): Promise<Map<number, Account>> {
  const r = await sql<{ id: number; created_at: Date; account_type: Account['type']; prints: string[] | null }>`
    SELECT u.id, u.created_at, u.account_type,
           (SELECT array_agg(DISTINCT p) FROM sign_in_fingerprints f, unnest(ARRAY['ip:' || f.ip_hash, 'ua:' || f.ua_hash]) p WHERE f.user_id = u.id) AS prints
    FROM users u WHERE u.id = ANY(${ids}::int[])`.execute(db);
  return new Map(r.rows.map((u) => [u.id, { id: u.id, createdAt: u.created_at.getTime(), type: u.account_type, fingerprints: u.prints ?? [] }]));
}

export async function overridesOf(db: Db, month: string): Promise<Override[]> {
  const rows = await db.selectFrom('credibility_overrides').select(['kind', 'members', 'decision']).where('month', '=', month).execute();
  return rows.map((o) => ({ kind: o.kind as Override['kind'], members: o.members, decision: o.decision }));
}

export async function latestRun(db: Db, month: string) {
  return db.selectFrom('credibility_runs').selectAll().where('month', '=', month).orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function createRun(db: Db, month: string, asOf: Date, leaseS: number) {
  return db
    .insertInto('credibility_runs')
    .values({ month, as_of: asOf, lease_until: sql<Date>`now() + make_interval(secs => ${leaseS})` })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Take the run's lease when it is free or expired (one more attempt); undefined when another runner holds it. */
export async function claimRun(db: Db, runId: number, leaseS: number) {
  return db
    .updateTable('credibility_runs')
    .set({ lease_until: sql`now() + make_interval(secs => ${leaseS})`, attempts: sql`attempts + 1` })
    .where('id', '=', runId)
    .where('finished_at', 'is', null)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
}

/** Stage a batch of weights, move the run's cursor past `cursor` and renew its lease, in one transaction. */
export async function stageBatch(db: Db, runId: number, weights: Weighted[], cursor: number, leaseS: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (weights.length) {
      await sql`
        INSERT INTO credibility_staged (run_id, kind, target_id, user_id, weight, reasons)
        SELECT ${runId}, t.kind, t.target_id, t.user_id, t.weight, string_to_array(t.reasons, '|')
        FROM unnest(${weights.map((w) => w.kind)}::text[], ${weights.map((w) => w.targetId)}::int[], ${weights.map((w) => w.userId)}::int[],
                    ${weights.map((w) => w.weight)}::real[], ${weights.map((w) => w.reasons.join('|'))}::text[]) AS t(kind, target_id, user_id, weight, reasons)
        ON CONFLICT DO NOTHING`.execute(trx);
    }
    await trx
      .updateTable('credibility_runs')
      .set({ cursor, lease_until: sql`now() + make_interval(secs => ${leaseS})` })
      .where('id', '=', runId)
      .execute();
  });
}

/**
 * Replace the month's weights and flags with the run's, and mark the run finished (one transaction);
 * false when the run was already finished (another runner published it).
 * Set-based and by difference: the month's rows the run did not stage are deleted, rows whose weight
 * or reasons changed are rewritten and missing rows inserted (one upsert); a row that stays the same is not written
 * (most of a nightly recompute's weights are the previous night's). Rows the per-vote update wrote
 * after the run's as_of (votes cast or changed after the activity the run read) are left as they
 * are; the rows the run writes carry its as_of.
 */
export async function publishRun(db: Db, run: { id: number; month: string; as_of: Date }, flags: Flag[], stats: Record<string, number>): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    // First, under the run's row lock: a run another runner has already published is not published twice.
    const mine = await trx
      .updateTable('credibility_runs')
      .set({ finished_at: sql`now()`, lease_until: null, stats: JSON.stringify(stats) })
      .where('id', '=', run.id)
      .where('finished_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!mine) return false;
    // The staged rows were written since the table was last analysed: without fresh statistics the
    // planner takes the run's rows for none and may compare every weight with every staged row.
    await sql`ANALYZE credibility_staged`.execute(trx);
    await sql`
      DELETE FROM credibility_weights w WHERE w.month = ${run.month} AND w.written_at <= ${run.as_of}
        AND NOT EXISTS (SELECT 1 FROM credibility_staged s WHERE s.run_id = ${run.id} AND s.kind = w.kind AND s.target_id = w.target_id AND s.user_id = w.user_id)`.execute(trx);
    // One upsert inserts the missing rows and rewrites the changed ones; an unchanged row, or one
    // the per-vote update wrote after as_of, is left as it is. Each staged row costs one probe of
    // the primary key, whatever the planner believes of either table's size.
    await sql`
      INSERT INTO credibility_weights (month, kind, target_id, user_id, weight, reasons, written_at)
      SELECT ${run.month}, s.kind, s.target_id, s.user_id, s.weight, s.reasons, ${run.as_of} FROM credibility_staged s
      WHERE s.run_id = ${run.id}
      ON CONFLICT (kind, target_id, user_id) DO UPDATE SET month = excluded.month, weight = excluded.weight, reasons = excluded.reasons, written_at = excluded.written_at
        WHERE credibility_weights.written_at <= excluded.written_at
          AND (credibility_weights.month, credibility_weights.weight, credibility_weights.reasons) IS DISTINCT FROM (excluded.month, excluded.weight, excluded.reasons)`.execute(
      trx,
    );
    await trx.deleteFrom('credibility_staged').where('run_id', '=', run.id).execute();
    await trx.deleteFrom('credibility_flags').where('month', '=', run.month).execute();
    if (flags.length) {
      await trx
        .insertInto('credibility_flags')
        .values(flags.map((f) => ({ month: run.month, kind: f.kind, members: f.members, evidence: JSON.stringify(f.evidence) })))
        .execute();
    }
    return true;
  });
}

/** The month's latest finished run that saw activity up to `since` (its as_of is at or after it). */
export async function finishedSince(db: Db, month: string, since: Date) {
  return db
    .selectFrom('credibility_runs')
    .select(['id', 'finished_at'])
    .where('month', '=', month)
    .where('finished_at', 'is not', null)
    .where('as_of', '>=', since)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}
