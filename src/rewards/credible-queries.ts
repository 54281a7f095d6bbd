/**
 * The boards of a month scored with credibility (docs/rewards.md, docs/credibility.md): used once the
 * month has a finished credibility recompute. Each CTE yields (user_id, activity, score,
 * contributions): activity is the naive measure (what was done), score what was credited.
 *  - top_posters: approved submissions live in the month, each weighted by its credibility.
 *  - top_yappers: per yap, its credibility times (base score + other users' votes, each weighted by
 *    the vote's credibility).
 *  - top_voters: per vote on someone else's article or yap, its credibility times its curation
 *    value: agreeing with the eventual judgement (upvote on an approved or scheduled article,
 *    downvote on a killed or retracted one; on a yap, the sign of its score from everyone else) is 1
 *    when cast before the editors' decision and 0.5 after; an undecided item 0.25; disagreeing 0.
 *  - top_editors: reviews of others' submissions, except approvals inside the author's own flagged
 *    group.
 * Weights absent from credibility_weights are 1.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';

export async function monthIsCredible(db: Db, month: string): Promise<boolean> {
  const r = await db.selectFrom('credibility_runs').select('id').where('month', '=', month).where('finished_at', 'is not', null).limit(1).executeTakeFirst();
  return !!r;
}

const w = (kind: string, target: ReturnType<typeof sql.ref>, user: ReturnType<typeof sql.ref>) =>
  sql`coalesce((SELECT cw.weight FROM credibility_weights cw WHERE cw.kind = ${kind} AND cw.target_id = ${target} AND cw.user_id = ${user}), 1)`;

const OWN_GROUP_REVIEW = "approved by a member of the author's own flagged group";

/** The last CTE of both activity queries: `cat`, one row per user and board, from the four boards' CTEs. */
export const boardRows = sql`cat AS (
      SELECT 'top_posters'::text AS board, * FROM posters
      UNION ALL SELECT 'top_yappers', * FROM yappers
      UNION ALL SELECT 'top_voters', * FROM voters
      UNION ALL SELECT 'top_editors', * FROM editors
    )`;

export function credibleBoardActivity(start: Date, end: Date) {
  const decided = (status: string[], vote: number) => sql`a.status = ANY(${status}::text[]) AND v.weight = ${vote}`;
  return sql`
    posters AS (
      SELECT a.submitted_by AS user_id, count(*)::bigint AS activity, sum(${w('submission', sql.ref('a.id'), sql.ref('a.submitted_by'))})::float8 AS score,
             count(*)::bigint AS contributions
      FROM articles a
      WHERE a.status = 'approved' AND a.submitted_by IS NOT NULL
        AND coalesce(a.published_at, a.reviewed_at, a.created_at) >= ${start}
        AND coalesce(a.published_at, a.reviewed_at, a.created_at) < ${end}
      GROUP BY a.submitted_by
    ),
    yap_votes_w AS (
      SELECT yv.yap_id, yv.user_id, yv.created_at, yv.weight AS value, yv.weight * ${w('yap_vote', sql.ref('yv.yap_id'), sql.ref('yv.user_id'))} AS credited
      FROM yap_votes yv JOIN yaps y ON y.id = yv.yap_id
      WHERE yv.created_at < ${end} AND yv.user_id <> y.user_id AND y.created_at >= ${start}::timestamptz - interval '1 month'
    ),
    yap_net AS (
      SELECT y.id AS yap_id, y.base_score + coalesce(sum(o.credited), 0) AS net, y.base_score + coalesce(sum(o.value), 0) AS naive
      FROM yaps y LEFT JOIN yap_votes_w o ON o.yap_id = y.id
      WHERE y.created_at >= ${start}::timestamptz - interval '1 month' AND y.created_at < ${end}
      GROUP BY y.id
    ),
    yappers AS (
      SELECT y.user_id, sum(n.naive)::bigint AS activity, sum(${w('yap', sql.ref('y.id'), sql.ref('y.user_id'))} * n.net)::float8 AS score,
             count(*)::bigint AS contributions
      FROM yaps y JOIN yap_net n ON n.yap_id = y.id
      WHERE y.created_at >= ${start} AND y.created_at < ${end}
      GROUP BY y.user_id
    ),
    voters AS (
      SELECT user_id, count(*)::bigint AS activity, sum(credit)::float8 AS score, count(*)::bigint AS contributions
      FROM (
        SELECT v.user_id, ${w('article_vote', sql.ref('v.article_id'), sql.ref('v.user_id'))} * CASE
                 WHEN ${decided(['approved', 'scheduled'], 1)} OR ${decided(['killed', 'retracted'], -1)}
                   THEN CASE WHEN a.reviewed_at IS NULL OR v.created_at <= a.reviewed_at THEN 1.0 ELSE 0.5 END
                 WHEN a.status = 'submitted' THEN 0.25
                 ELSE 0 END AS credit
        FROM votes v JOIN articles a ON a.id = v.article_id
        WHERE v.created_at >= ${start} AND v.created_at < ${end} AND a.submitted_by IS DISTINCT FROM v.user_id
        UNION ALL
        SELECT o.user_id, ${w('yap_vote', sql.ref('o.yap_id'), sql.ref('o.user_id'))} * CASE
                 WHEN sign(n.net - o.credited) = 0 THEN 0.25
                 WHEN sign(n.net - o.credited) = sign(o.value) THEN 1.0
                 ELSE 0 END
        FROM yap_votes_w o JOIN yap_net n ON n.yap_id = o.yap_id
        WHERE o.created_at >= ${start}
      ) cast_votes
      GROUP BY user_id
    ),
    reviews AS (
      SELECT DISTINCT e.editor_id AS user_id, e.article_id,
             CASE WHEN cw.reasons @> ARRAY[${OWN_GROUP_REVIEW}]::text[] THEN 0.0 ELSE 1.0 END AS credit
      FROM article_edits e JOIN articles a ON a.id = e.article_id
      LEFT JOIN credibility_weights cw ON cw.kind = 'submission' AND cw.target_id = a.id AND cw.user_id = a.submitted_by
      WHERE e.editor_id IS NOT NULL AND e.created_at >= ${start} AND e.created_at < ${end}
        AND e.changes -> 'status' ->> 'from' = 'submitted'
        AND a.submitted_by IS DISTINCT FROM e.editor_id
    ),
    editors AS (
      SELECT user_id, count(*)::bigint AS activity, sum(credit)::float8 AS score, count(*)::bigint AS contributions
      FROM reviews GROUP BY user_id
    ),
    ${boardRows}`;
}

/** The reasons the user's activity of the month counted less, each with how many items it applied to (most first). */
export async function creditReasons(db: Db, month: string, userId: number): Promise<{ reason: string; items: number }[]> {
  const r = await sql<{ reason: string; items: number }>`
    SELECT r AS reason, count(*)::int AS items FROM credibility_weights cw, unnest(cw.reasons) r
    WHERE cw.month = ${month} AND cw.user_id = ${userId}
    GROUP BY r ORDER BY items DESC, r`.execute(db);
  return r.rows;
}
