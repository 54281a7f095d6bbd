/**
 * The SQL twin of src/articles/rules/hot-score.ts: one set-based UPDATE recomputes the stored hot score and
 * its terms for a set of articles. test/unit/hot-score.test.ts and the integration tests check that
 * the two agree term by term.
 *
 * Scores and their terms live in the narrow side table article_hot_scores (one row per article,
 * status copied from articles by a trigger; db/migrations/20261123T100000_article_hot_scores.ts),
 * not in the wide articles table: a rewrite is a ~110-byte row and two index entries (primary key,
 * feed index) instead of a wide row and an entry in each of the articles indexes. It is still not a
 * HOT update when the score changes (hot_score is indexed), so routine runs skip rows whose score
 * moved by less than SKIP_RELATIVE_CHANGE while their engagement is unchanged and their terms are
 * less than an hour old (ordering error below 0.5 %); `all` (backfill) writes every row.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { HOT, type HotTerms } from './rules/hot-score.js';

/** Routine runs leave a row alone when its score moved by less than this fraction (and nothing else changed). */
const SKIP_RELATIVE_CHANGE = 0.005;

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
      : sql`AND (h.hot_computed_at IS NULL
             OR h.hot_computed_at < ${now} - interval '1 hour'
             OR h.engagement IS DISTINCT FROM t.engagement
             OR abs(h.hot_score - t.score) > ${SKIP_RELATIVE_CHANGE}::float8 * greatest(abs(h.hot_score), abs(t.score)))`;
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
    UPDATE article_hot_scores h SET
      hot_score = t.score, votes = t.votes, yap_quality = t.yap_quality, click_term = t.click_term, engagement = t.engagement,
      points = t.points, age_hours = t.age_hours, decay = t.decay, hot_computed_at = ${now}
    FROM (
      SELECT e.*, ${HOT.SCALE}::float8 * e.points / e.decay AS score
      FROM (
        SELECT i.*, greatest(0::float8, ${HOT.SUBMISSION_POINT}::float8 + i.engagement) AS points,
               power(i.age_hours + ${HOT.AGE_OFFSET_HOURS}::float8, ${HOT.GRAVITY}::float8) AS decay
        FROM (
          SELECT c.*, c.votes + c.yap_quality + c.click_term AS engagement
          FROM (
            -- date_part, not extract: float8 arithmetic (extract returns numeric).
            SELECT b.id, b.vote_count AS votes, coalesce(yq.yap_quality, 0)::float8 AS yap_quality,
                   ${HOT.CLICK_WEIGHT}::float8 * ln(1 + b.clicks::float8) / ln(2::float8) AS click_term,
                   greatest(0::float8, date_part('epoch', ${now} - coalesce(b.published_at, b.created_at)) / 3600) AS age_hours
            FROM articles b LEFT JOIN yq ON yq.article_id = b.id
            WHERE ${scoped}
            -- OFFSET 0 keeps each level a subquery: flattened, every term would be recomputed wherever it is used.
            OFFSET 0
          ) c
          OFFSET 0
        ) i
        OFFSET 0
      ) e
    ) t
    WHERE h.article_id = t.id ${changed}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/**
 * The API's hot_terms object (HotTerms) built from the term columns of `article_hot_scores AS h`,
 * NULL before the article's first recompute.
 */
export const hotTermsJson = sql<HotTerms | null>`CASE WHEN h.hot_computed_at IS NOT NULL THEN jsonb_build_object(
  'votes', h.votes, 'yap_quality', h.yap_quality, 'click_term', h.click_term, 'engagement', h.engagement,
  'points', h.points, 'age_hours', round(h.age_hours::numeric, 3), 'decay', h.decay, 'score', h.hot_score) END`;
