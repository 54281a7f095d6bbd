/**
 * Leaderboard snapshots. One set-based INSERT ... SELECT computes every board of a month; the month's
 * old entries are replaced in the same transaction, so readers see either the previous snapshot or the
 * new one, never a mix. A per-month advisory lock serialises computations of the same month with each
 * other and with the monthly distribution (which freezes the month).
 *
 * What each board measures, for the UTC month [start, end):
 *  - top_posters: the user's submissions that are `approved` and went live in the month
 *    (published_at, or reviewed_at / created_at when no publish time was recorded).
 *  - top_yappers: the net score of the yaps the user wrote in the month: each yap's base score
 *    (human +1, cyborg 0, bot -1) plus the votes other users cast on it before the month ended
 *    (a user's votes on their own yaps do not count). Users whose total is 0 or less are not ranked.
 *  - top_voters: votes the user cast in the month on articles they did not submit and on yaps they did
 *    not write (self-votes and votes on one's own articles do not count). A cleared vote is no vote.
 *  - top_editors: reviews done: articles the editor moved out of `submitted` in the month (approved,
 *    killed or scheduled), read from the edit history (article_edits rows whose status change starts
 *    at `submitted`). articles.reviewed_by is not used because a later retraction overwrites it with
 *    the retracting editor. Reviews of the editor's own submissions do not count.
 *  - engagement: score = the sum of the user's market shares on the four boards (percentage points, so
 *    each category weighs the same); activity_count = contributions (approved submissions + yaps written
 *    + votes counted + reviews).
 * rank: standard competition ranking ("1224"): equal scores share a rank and the next rank skips.
 * market_share: 100 * score / the board's total score.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { BOARDS, monthIndex, monthRange, type Board } from './rules/rewards.js';
import { boardRows, credibleBoardActivity, monthIsCredible } from './credible-queries.js';

/** First key of the per-month advisory lock (the second is the month index). */
const MONTH_LOCK_NS = 7_000_001;

type Executor = Db;

export async function lockMonth(trx: Executor, month: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${MONTH_LOCK_NS}::int, ${monthIndex(month)}::int)`.execute(trx);
}

export interface BoardTotals {
  total: number;
  participants: number;
}

export interface ComputeResult {
  month: string;
  computed: boolean;
  frozen: boolean;
  entries: number;
  ms: number;
  totals: Record<Board, BoardTotals> | null;
}

/**
 * Per-board activity of every user in [start, end) (see the header): the CTEs up to `cat`, whose
 * rows are (board, user_id, activity, contributions).
 */
function boardActivity(start: Date, end: Date) {
  return sql`
    posters AS (
      SELECT submitted_by AS user_id, count(*)::bigint AS activity, count(*)::float8 AS score, count(*)::bigint AS contributions
      FROM articles
      WHERE status = 'approved' AND submitted_by IS NOT NULL
        AND coalesce(published_at, reviewed_at, created_at) >= ${start}
        AND coalesce(published_at, reviewed_at, created_at) < ${end}
      GROUP BY submitted_by
    ),
    yap_others AS (
      SELECT yv.yap_id, sum(yv.weight)::bigint AS w
      FROM yap_votes yv JOIN yaps y ON y.id = yv.yap_id
      WHERE y.created_at >= ${start} AND y.created_at < ${end}
        AND yv.created_at < ${end} AND yv.user_id <> y.user_id
      GROUP BY yv.yap_id
    ),
    yappers AS (
      SELECT y.user_id, sum(y.base_score + coalesce(o.w, 0))::bigint AS activity, sum(y.base_score + coalesce(o.w, 0))::float8 AS score,
             count(*)::bigint AS contributions
      FROM yaps y LEFT JOIN yap_others o ON o.yap_id = y.id
      WHERE y.created_at >= ${start} AND y.created_at < ${end}
      GROUP BY y.user_id
    ),
    voters AS (
      SELECT user_id, count(*)::bigint AS activity, count(*)::float8 AS score, count(*)::bigint AS contributions
      FROM (
        SELECT v.user_id FROM votes v JOIN articles a ON a.id = v.article_id
        WHERE v.created_at >= ${start} AND v.created_at < ${end} AND a.submitted_by IS DISTINCT FROM v.user_id
        UNION ALL
        SELECT yv.user_id FROM yap_votes yv JOIN yaps y ON y.id = yv.yap_id
        WHERE yv.created_at >= ${start} AND yv.created_at < ${end} AND yv.user_id <> y.user_id
      ) cast_votes
      GROUP BY user_id
    ),
    editors AS (
      SELECT e.editor_id AS user_id, count(DISTINCT e.article_id)::bigint AS activity, count(DISTINCT e.article_id)::float8 AS score,
             count(DISTINCT e.article_id)::bigint AS contributions
      FROM article_edits e JOIN articles a ON a.id = e.article_id
      WHERE e.editor_id IS NOT NULL AND e.created_at >= ${start} AND e.created_at < ${end}
        AND e.changes -> 'status' ->> 'from' = 'submitted'
        AND a.submitted_by IS DISTINCT FROM e.editor_id
      GROUP BY e.editor_id
    ),
    ${boardRows}`;
}

/** Replaces the month's entries with freshly ranked ones; returns how many were inserted. */
export async function insertEntries(trx: Executor, month: string): Promise<number> {
  const { start, end } = monthRange(month);
  await trx.deleteFrom('leaderboard_entries').where('month', '=', month).execute();
  const credible = await monthIsCredible(trx, month);
  const inserted = await sql<{ n: number }>`
    WITH
    ${credible ? credibleBoardActivity(start, end) : boardActivity(start, end)},
    scored AS (
      SELECT board, user_id, activity, score, score * 100.0 / sum(score) OVER (PARTITION BY board) AS share
      FROM cat WHERE score > 0
    ),
    engagement AS (
      SELECT 'engagement'::text AS board, s.user_id, c.contributions AS activity, s.score,
             s.score * 100.0 / sum(s.score) OVER () AS share
      FROM (SELECT user_id, sum(share)::float8 AS score FROM scored GROUP BY user_id) s
      JOIN (SELECT user_id, sum(contributions)::bigint AS contributions FROM cat GROUP BY user_id) c USING (user_id)
    ),
    all_boards AS (
      SELECT board, user_id, activity, score, share FROM scored
      UNION ALL SELECT board, user_id, activity, score, share FROM engagement
    ),
    ins AS (
      INSERT INTO leaderboard_entries (month, board, user_id, rank, activity_count, score, market_share)
      SELECT ${month}, board, user_id, rank() OVER (PARTITION BY board ORDER BY score DESC), activity, score, share
      FROM all_boards
      RETURNING 1
    )
    SELECT count(*)::int AS n FROM ins`.execute(trx);
  return inserted.rows[0]?.n ?? 0;
}

/** Score total and participants of every board of the month. */
export async function boardTotals(trx: Executor, month: string): Promise<Record<Board, BoardTotals>> {
  const rows = await trx
    .selectFrom('leaderboard_entries')
    .select(['board', sql<number>`sum(score)::float8`.as('total'), sql<number>`count(*)::int`.as('participants')])
    .where('month', '=', month)
    .groupBy('board')
    .execute();
  const totals = Object.fromEntries(BOARDS.map((b) => [b, { total: 0, participants: 0 }])) as Record<Board, BoardTotals>;
  for (const r of rows) totals[r.board as Board] = { total: Number(r.total), participants: Number(r.participants) };
  return totals;
}

/** The month's frozen_at, undefined when it has no snapshot row. */
export async function snapshotFrozenAt(trx: Executor, month: string) {
  return trx.selectFrom('leaderboard_snapshots').select(['frozen_at']).where('month', '=', month).executeTakeFirst();
}

export async function ensureSnapshotRow(trx: Executor, month: string): Promise<void> {
  await sql`
    INSERT INTO leaderboard_snapshots (month, computed_at, totals) VALUES (${month}, now(), '{}')
    ON CONFLICT (month) DO NOTHING`.execute(trx);
}

/**
 * Fresh statistics with the new rows: right after a month's first computation the planner would
 * otherwise still believe the table empty and scan it for every board read (p50 40 ms instead of
 * 2 ms on the benchmark month until autovacuum caught up).
 */
export async function analyzeEntries(trx: Executor): Promise<void> {
  await sql`ANALYZE leaderboard_entries`.execute(trx);
}

export async function markSnapshotComputed(trx: Executor, month: string, s: { ms: number; totals: Record<Board, BoardTotals>; freeze: boolean }) {
  await trx
    .updateTable('leaderboard_snapshots')
    .set({
      computed_at: sql`now()`,
      duration_ms: s.ms,
      totals: JSON.stringify(s.totals),
      ...(s.freeze ? { frozen_at: sql`now()` } : {}),
    })
    .where('month', '=', month)
    .execute();
}

/** The earliest activity of any kind (to backfill months that never had a snapshot). */
export async function firstActivityAt(db: Db): Promise<Date | null> {
  const r = await sql<{ at: Date | null }>`
    SELECT least(
      (SELECT min(created_at) FROM votes),
      (SELECT min(created_at) FROM yaps),
      (SELECT min(created_at) FROM articles WHERE submitted_by IS NOT NULL)
    ) AS at`.execute(db);
  return r.rows[0]?.at ?? null;
}

export async function snapshotStates(db: Db) {
  return db.selectFrom('leaderboard_snapshots').select(['month', 'frozen_at', 'computed_at']).execute();
}

export async function getSnapshot(db: Db, month: string) {
  return db.selectFrom('leaderboard_snapshots').selectAll().where('month', '=', month).executeTakeFirst();
}

export async function topEntries(db: Db, month: string, boards: readonly Board[], limit: number) {
  // One ordered index range per board (leaderboard_entries_rank_idx), then the users.
  const rows = await sql<{
    board: Board;
    rank: number;
    user_id: number;
    activity_count: number;
    score: number;
    market_share: number;
    username: string | null;
    wallet_address: string;
    display_name: string | null;
    profile_picture: string | null;
    account_type: string;
  }>`
    SELECT e.board, e.rank, e.user_id, e.activity_count, e.score, e.market_share,
           u.username, u.wallet_address, u.display_name, u.profile_picture, u.account_type
    FROM unnest(${sql.val([...boards])}::text[]) AS b(board)
    CROSS JOIN LATERAL (
      SELECT * FROM leaderboard_entries le
      WHERE le.month = ${month} AND le.board = b.board
      ORDER BY le.rank, le.user_id
      LIMIT ${limit}
    ) e
    JOIN users u ON u.id = e.user_id
    ORDER BY e.board, e.rank, e.user_id`.execute(db);
  return rows.rows;
}

export async function userEntries(db: Db, month: string, userId: number) {
  return db
    .selectFrom('leaderboard_entries')
    .select(['board', 'rank', 'activity_count', 'score', 'market_share'])
    .where('month', '=', month)
    .where('user_id', '=', userId)
    .execute();
}

/** A frozen month's entries of the four categories (the distribution's input). */
export async function categoryEntries(db: Executor, month: string) {
  return db
    .selectFrom('leaderboard_entries as e')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .select(['e.board', 'e.user_id', 'e.activity_count', 'e.score', 'u.wallet_address'])
    .where('e.month', '=', month)
    .where('e.board', '<>', 'engagement')
    .execute();
}
