/**
 * Credibility SQL of the per-vote update: one vote with what the rules need about it and its voter,
 * the month's published flags and staff decisions that name the voter, and the write of the vote's
 * weight row.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import type { Account, Flag, Override, Vote, Weighted } from './rules/model.js';
import { monthBounds } from './rules/month.js';

export type VoteKind = Vote['kind'];

/** The vote as the rules see it and its voter's account; null when the vote no longer exists. */
export async function voteWithVoter(db: Db, kind: VoteKind, targetId: number, userId: number): Promise<{ vote: Vote; account: Account } | null> {
  const q =
    kind === 'article_vote'
      ? sql<Row>`
        SELECT v.weight AS value, v.created_at AS at, a.submitted_by AS author_id,
               EXISTS (SELECT 1 FROM article_readers r WHERE r.article_id = v.article_id AND r.user_id = v.user_id) AS clicked,
               u.created_at AS user_created_at, u.account_type
        FROM votes v JOIN articles a ON a.id = v.article_id JOIN users u ON u.id = v.user_id
        WHERE v.article_id = ${targetId} AND v.user_id = ${userId}`
      : sql<Row>`
        SELECT v.weight AS value, v.created_at AS at, y.user_id AS author_id, false AS clicked,
               u.created_at AS user_created_at, u.account_type
        FROM yap_votes v JOIN yaps y ON y.id = v.yap_id JOIN users u ON u.id = v.user_id
        WHERE v.yap_id = ${targetId} AND v.user_id = ${userId}`;
  const r = (await q.execute(db)).rows[0];
  if (!r) return null;
  const vote: Vote = { kind, targetId, userId, value: r.value, at: r.at.getTime(), authorId: r.author_id, clicked: r.clicked };
  return { vote, account: { id: userId, createdAt: r.user_created_at.getTime(), type: r.account_type, fingerprints: [] } };
}

interface Row {
  value: 1 | -1;
  at: Date;
  author_id: number | null;
  clicked: boolean;
  user_created_at: Date;
  account_type: Account['type'];
}

/**
 * The month's published flags and staff decisions that name the user and, when `clicks` is set,
 * its article votes of the month on others' articles and how many of them it opened.
 */
export async function voterMonth(db: Db, month: string, userId: number, clicks: boolean) {
  const { start, end } = monthBounds(month);
  const counts = clicks
    ? sql`(SELECT count(*) FROM votes v JOIN articles a ON a.id = v.article_id
            WHERE v.user_id = ${userId} AND v.created_at >= ${start} AND v.created_at < ${end} AND a.submitted_by IS DISTINCT FROM v.user_id)::int AS article_votes,
          (SELECT count(*) FROM votes v JOIN articles a ON a.id = v.article_id JOIN article_readers r ON r.article_id = v.article_id AND r.user_id = v.user_id
            WHERE v.user_id = ${userId} AND v.created_at >= ${start} AND v.created_at < ${end} AND a.submitted_by IS DISTINCT FROM v.user_id)::int AS clicked`
    : sql`0 AS article_votes, 0 AS clicked`;
  const r = await sql<{ flags: Flag[]; overrides: Override[]; article_votes: number; clicked: number }>`
    SELECT (SELECT coalesce(json_agg(json_build_object('kind', f.kind, 'members', f.members, 'evidence', f.evidence)), '[]'::json)
            FROM credibility_flags f WHERE f.month = ${month} AND ${userId}::int = ANY(f.members)) AS flags,
           (SELECT coalesce(json_agg(json_build_object('kind', o.kind, 'members', o.members, 'decision', o.decision)), '[]'::json)
            FROM credibility_overrides o WHERE o.month = ${month} AND ${userId}::int = ANY(o.members)) AS overrides,
           ${counts}`.execute(db);
  const row = r.rows[0];
  return { flags: row.flags, overrides: row.overrides, articleVotes: row.article_votes, clicked: row.clicked };
}

/**
 * Write one vote's weight: a weight below 1 is upserted with written_at now() (a full recompute's
 * publication keeps it when it is newer than the run's cut-off); full weight deletes the row.
 */
export async function writeVoteWeight(db: Db, month: string, w: Weighted): Promise<void> {
  if (w.weight < 1) {
    await sql`
      INSERT INTO credibility_weights (month, kind, target_id, user_id, weight, reasons, written_at)
      VALUES (${month}, ${w.kind}, ${w.targetId}, ${w.userId}, ${w.weight}, ${w.reasons}::text[], now())
      ON CONFLICT (kind, target_id, user_id) DO UPDATE SET month = excluded.month, weight = excluded.weight, reasons = excluded.reasons, written_at = excluded.written_at`.execute(
      db,
    );
  } else await deleteVoteWeight(db, w.kind as VoteKind, w.targetId, w.userId);
}

export async function deleteVoteWeight(db: Db, kind: VoteKind, targetId: number, userId: number): Promise<void> {
  await db.deleteFrom('credibility_weights').where('kind', '=', kind).where('target_id', '=', targetId).where('user_id', '=', userId).execute();
}
