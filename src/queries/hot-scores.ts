/**
 * The SQL twin of src/domain/hot-score.ts: one set-based UPDATE recomputes the stored hot score and
 * its terms for a set of articles. test/unit/hot-score.test.ts and the integration tests check that
 * the two agree term by term.
 */
import { sql } from 'kysely';
import type { Db } from '../db.js';
import { HOT } from '../domain/hot-score.js';

export interface RecomputeScope {
  /** Only these articles (debounced recompute after votes, yaps, clicks; approval). */
  articleIds?: number[];
  /** Articles whose age basis (published_at, else created_at) is older are left alone. Ignored with `all`. */
  windowHours: number;
  /** Every approved and submitted article regardless of age (backfill after a formula change, benchmark). */
  all?: boolean;
}

/** Recompute hot scores of approved and submitted articles in scope; returns the number of rows updated. */
export async function recomputeHotScores(db: Db, scope: RecomputeScope): Promise<number> {
  if (scope.articleIds && scope.articleIds.length === 0) return 0;
  const ids = scope.articleIds ? sql`AND b.id = ANY(${scope.articleIds}::int[])` : sql``;
  const window = scope.all ? sql`` : sql`AND coalesce(b.published_at, b.created_at) > now() - make_interval(hours => ${scope.windowHours}::int)`;
  const r = await sql`
    UPDATE articles a SET
      hot_score = t.score,
      hot_terms = jsonb_build_object(
        'votes', t.votes, 'yap_quality', t.yap_quality, 'click_term', t.click_term, 'engagement', t.engagement,
        'points', t.points, 'age_hours', round(t.age_hours::numeric, 3), 'decay', t.decay, 'score', t.score),
      hot_computed_at = now()
    FROM (
      SELECT e.*, ${HOT.SCALE}::float8 * e.points / e.decay AS score
      FROM (
        SELECT i.*, greatest(0::float8, ${HOT.SUBMISSION_POINT}::float8 + i.engagement) AS points,
               power(i.age_hours + ${HOT.AGE_OFFSET_HOURS}::float8, ${HOT.GRAVITY}::float8) AS decay
        FROM (
          SELECT b.id, b.vote_count AS votes, yq.yap_quality,
                 ${HOT.CLICK_WEIGHT}::float8 * ln(1 + b.clicks::float8) / ln(2::float8) AS click_term,
                 b.vote_count + yq.yap_quality + ${HOT.CLICK_WEIGHT}::float8 * ln(1 + b.clicks::float8) / ln(2::float8) AS engagement,
                 greatest(0::float8, extract(epoch FROM now() - coalesce(b.published_at, b.created_at))::float8 / 3600) AS age_hours
          FROM articles b
          CROSS JOIN LATERAL (
            SELECT ${HOT.YAP_WEIGHT}::float8 * coalesce(sum(least(greatest(best, 0), ${HOT.YAP_AUTHOR_CAP}::int)), 0)::float8 AS yap_quality
            FROM (
              SELECT max(y.score) AS best FROM yaps y
              WHERE y.article_id = b.id AND y.user_id IS DISTINCT FROM b.submitted_by
              GROUP BY y.user_id
            ) per_author
          ) yq
          WHERE b.status IN ('approved', 'submitted') ${ids} ${window}
        ) i
      ) e
    ) t
    WHERE a.id = t.id`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}
