/**
 * The SQL twin of src/domain/hot-score.ts: one set-based UPDATE recomputes the stored hot score and
 * its terms for a set of articles. test/unit/hot-score.test.ts and the integration tests check that
 * the two agree term by term.
 *
 * Cost: every changed row is a non-HOT update (hot_score is indexed), so Postgres writes an entry
 * into each of the articles indexes; that write, not the arithmetic, is most of the time. Routine
 * runs therefore skip rows whose score moved by less than SKIP_RELATIVE_CHANGE while their
 * engagement is unchanged and their terms are less than an hour old (ordering error below 0.5 %);
 * `all` (backfill) writes every row.
 */
import { sql } from 'kysely';
import type { Db } from '../db.js';
import { HOT } from '../domain/hot-score.js';

/** Routine runs leave a row alone when its score moved by less than this fraction (and nothing else changed). */
export const SKIP_RELATIVE_CHANGE = 0.005;

export interface RecomputeScope {
  /** Only these articles (debounced recompute after votes, yaps, clicks; approval). */
  articleIds?: number[];
  /** Articles whose age basis (published_at, else created_at) is older are left alone. Ignored with `all`. */
  windowHours: number;
  /** Every approved and submitted article regardless of age, every row written (backfill after a formula change). */
  all?: boolean;
  /** The time the scores are computed for (default: the database's now()). */
  now?: Date;
}

/** Recompute hot scores of approved and submitted articles in scope; returns the number of rows updated. */
export async function recomputeHotScores(db: Db, scope: RecomputeScope): Promise<number> {
  if (scope.articleIds && scope.articleIds.length === 0) return 0;
  const now = scope.now ? sql`${scope.now.toISOString()}::timestamptz` : sql`now()`;
  const ids = scope.articleIds ? sql`AND b.id = ANY(${scope.articleIds}::int[])` : sql``;
  const window = scope.all ? sql`` : sql`AND coalesce(b.published_at, b.created_at) > ${now} - make_interval(hours => ${scope.windowHours}::int)`;
  const scoped = sql`b.status IN ('approved', 'submitted') ${ids} ${window}`;
  // A single-article run must write (its engagement just changed); routine runs skip negligible moves.
  const changed =
    scope.all || scope.articleIds
      ? sql``
      : sql`AND (a.hot_computed_at IS NULL
             OR a.hot_computed_at < ${now} - interval '1 hour'
             OR (a.hot_terms->>'engagement')::float8 IS DISTINCT FROM t.engagement
             OR abs(a.hot_score - t.score) > ${SKIP_RELATIVE_CHANGE}::float8 * greatest(abs(a.hot_score), abs(t.score)))`;
  const r = await sql`
    WITH best AS (
      -- Each non-submitter author's best yap score, only for articles in scope (one hash aggregate, no per-article probe).
      SELECT y.article_id, max(y.score) AS best
      FROM yaps y JOIN articles b ON b.id = y.article_id AND y.user_id IS DISTINCT FROM b.submitted_by
      WHERE ${scoped}
      GROUP BY y.article_id, y.user_id
    ), yq AS (
      SELECT article_id, ${HOT.YAP_WEIGHT}::float8 * sum(least(greatest(best, 0), ${HOT.YAP_AUTHOR_CAP}::int))::float8 AS yap_quality
      FROM best GROUP BY article_id
    )
    UPDATE articles a SET
      hot_score = t.score,
      hot_terms = jsonb_build_object(
        'votes', t.votes, 'yap_quality', t.yap_quality, 'click_term', t.click_term, 'engagement', t.engagement,
        'points', t.points, 'age_hours', round(t.age_hours::numeric, 3), 'decay', t.decay, 'score', t.score),
      hot_computed_at = ${now}
    FROM (
      SELECT e.*, ${HOT.SCALE}::float8 * e.points / e.decay AS score
      FROM (
        SELECT i.*, greatest(0::float8, ${HOT.SUBMISSION_POINT}::float8 + i.engagement) AS points,
               power(i.age_hours + ${HOT.AGE_OFFSET_HOURS}::float8, ${HOT.GRAVITY}::float8) AS decay
        FROM (
          SELECT c.*, c.votes + c.yap_quality + c.click_term AS engagement
          FROM (
            SELECT b.id, b.vote_count AS votes, coalesce(yq.yap_quality, 0)::float8 AS yap_quality,
                   ${HOT.CLICK_WEIGHT}::float8 * ln(1 + b.clicks::float8) / ln(2::float8) AS click_term,
                   greatest(0::float8, extract(epoch FROM ${now} - coalesce(b.published_at, b.created_at))::float8 / 3600) AS age_hours
            FROM articles b LEFT JOIN yq ON yq.article_id = b.id
            WHERE ${scoped}
          ) c
        ) i
      ) e
    ) t
    WHERE a.id = t.id ${changed}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
