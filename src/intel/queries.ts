/**
 * Aggregates behind the intel endpoints. Article set everywhere: status approved, not sponsored,
 * published in the window (status, published_at) via articles_feed_window_idx; hot scores joined
 * from article_hot_scores by primary key. The math on top (velocity, posting signal) is in
 * src/intel/rules/report.ts.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../platform/db.js';

interface Window {
  from: Date;
  mid: Date;
  to: Date;
}

/**
 * Articles of the window, optionally only those carrying one of `topics`; with their hot score
 * only when asked (`withHot`): the join to article_hot_scores costs more than reading the window.
 */
function windowArticles(w: Window, topics: string[], withHot: boolean): RawBuilder<unknown> {
  return sql`
    SELECT a.id, a.slug, a.headline, a.url, a.source, a.published_at, a.clicks, a.vote_count, a.votes_cast, a.yap_count, a.tags
           ${withHot ? sql`, h.hot_score` : sql``}
    FROM articles a ${withHot ? sql`JOIN article_hot_scores h ON h.article_id = a.id` : sql``}
    WHERE a.status = 'approved' AND a.sponsored IS NULL
      AND a.published_at > ${w.from} AND a.published_at <= ${w.to}
      ${topics.length ? sql`AND a.tags && ${topics}::text[]` : sql``}`;
}

export interface TagRow {
  tag: string;
  article_count: number;
  recent_count: number;
  earlier_count: number;
  clicks: number;
  avg_clicks: number;
  avg_hot_score: number;
  max_hot_score: number;
  top_id: number | null;
  top_slug: string | null;
  top_headline: string | null;
  top_url: string | null;
  top_clicks: number | null;
  top_hot_score: number | null;
  top_published_at: Date | null;
}

/**
 * Tags of the window's articles with counts per half, click and hot-score averages, and the top
 * article (highest hot score) of each. Ordered by article count, then growth, then name.
 */
export async function tagStats(db: Db, w: Window, opts: { topics: string[]; limit: number; withTopArticle: boolean }): Promise<TagRow[]> {
  const { rows } = await sql<TagRow>`
    WITH w AS MATERIALIZED (${windowArticles(w, opts.topics, true)}),
    u AS (SELECT w.*, t.tag FROM w CROSS JOIN LATERAL unnest(w.tags) AS t(tag)
          ${opts.topics.length ? sql`WHERE t.tag = ANY(${opts.topics}::text[])` : sql``}),
    s AS (
      SELECT tag,
             count(*)::int AS article_count,
             (count(*) FILTER (WHERE published_at > ${w.mid}))::int AS recent_count,
             (count(*) FILTER (WHERE published_at <= ${w.mid}))::int AS earlier_count,
             sum(clicks)::int8 AS clicks,
             avg(clicks)::float8 AS avg_clicks,
             avg(hot_score)::float8 AS avg_hot_score,
             max(hot_score)::float8 AS max_hot_score
      FROM u GROUP BY tag
      ORDER BY article_count DESC,
               (count(*) FILTER (WHERE published_at > ${w.mid})) - (count(*) FILTER (WHERE published_at <= ${w.mid})) DESC,
               tag
      LIMIT ${opts.limit}
    )
    ${
      opts.withTopArticle
        ? sql`, top AS (
            SELECT DISTINCT ON (u.tag) u.tag, u.id, u.slug, u.headline, u.url, u.clicks, u.hot_score, u.published_at
            FROM u WHERE u.tag IN (SELECT tag FROM s)
            ORDER BY u.tag, u.hot_score DESC, u.clicks DESC, u.id DESC)
          SELECT s.*, top.id AS top_id, top.slug AS top_slug, top.headline AS top_headline, top.url AS top_url,
                 top.clicks AS top_clicks, top.hot_score AS top_hot_score, top.published_at AS top_published_at
          FROM s LEFT JOIN top ON top.tag = s.tag`
        : sql`SELECT s.*, NULL::int AS top_id, NULL::text AS top_slug, NULL::text AS top_headline, NULL::text AS top_url,
                     NULL::int AS top_clicks, NULL::float8 AS top_hot_score, NULL::timestamptz AS top_published_at FROM s`
    }
    ORDER BY s.article_count DESC, s.recent_count - s.earlier_count DESC, s.tag`.execute(db);
  return rows;
}

interface PulseRow {
  articles_1h: number;
  articles_6h: number;
  articles_24h: number;
}

/** Published article counts over the last 1, 6 and 24 hours. */
export async function pulseCounts(db: Db, now: Date): Promise<PulseRow> {
  const { rows } = await sql<PulseRow>`
    SELECT (count(*) FILTER (WHERE published_at > ${now}::timestamptz - interval '1 hour'))::int AS articles_1h,
           (count(*) FILTER (WHERE published_at > ${now}::timestamptz - interval '6 hours'))::int AS articles_6h,
           count(*)::int AS articles_24h
    FROM articles
    WHERE status = 'approved' AND sponsored IS NULL
      AND published_at > ${now}::timestamptz - interval '24 hours' AND published_at <= ${now}`.execute(db);
  return rows[0];
}

interface PlatformRow {
  articles_in_window: number;
  avg_hot_score: number | null;
  submissions_in_window: number;
  review_queue_depth: number;
  social_queue_depth: number;
}

/** Window-wide platform figures and the two queues (current, not windowed). */
export async function platformFigures(db: Db, w: Window): Promise<PlatformRow> {
  const { rows } = await sql<PlatformRow>`
    SELECT w.articles_in_window, w.avg_hot_score,
      (SELECT count(*)::int FROM articles WHERE sponsored IS NULL AND created_at > ${w.from} AND created_at <= ${w.to}) AS submissions_in_window,
      (SELECT count(*)::int FROM articles WHERE status = 'submitted') AS review_queue_depth,
      (SELECT count(*)::int FROM articles WHERE status = 'scheduled') AS social_queue_depth
    FROM (SELECT count(*)::int AS articles_in_window, avg(h.hot_score)::float8 AS avg_hot_score
          FROM articles a JOIN article_hot_scores h ON h.article_id = a.id
          WHERE a.status = 'approved' AND a.sponsored IS NULL AND a.published_at > ${w.from} AND a.published_at <= ${w.to}) w`.execute(db);
  return rows[0];
}

/** Clicks of settled articles by UTC hour of publication (basis of posting_signal). */
export async function clicksByPublishHour(db: Db, now: Date, lookbackDays: number, settleHours: number): Promise<{ hour: number; articles: number; clicks: number }[]> {
  const { rows } = await sql<{ hour: number; articles: number; clicks: number }>`
    SELECT extract(hour FROM published_at AT TIME ZONE 'UTC')::int AS hour, count(*)::int AS articles, sum(clicks)::int8 AS clicks
    FROM articles
    WHERE status = 'approved' AND sponsored IS NULL
      AND published_at > ${now}::timestamptz - make_interval(days => ${lookbackDays})
      AND published_at <= ${now}::timestamptz - make_interval(hours => ${settleHours})
    GROUP BY 1`.execute(db);
  return rows;
}

interface SourceRow {
  source: string;
  article_count: number;
  clicks: number;
  avg_clicks: number;
  votes: number;
  yaps: number;
}

interface ArticleRow {
  id: number;
  slug: string;
  headline: string;
  url: string;
  source: string;
  published_at: Date;
  clicks: number;
  vote_count: number;
  votes_cast: number;
  yap_count: number;
  hot_score: number;
  tags: string[];
}

interface EngagementRow {
  articles: number;
  clicks_total: number;
  clicks_avg: number | null;
  clicks_median: number | null;
  votes_total: number;
  votes_avg: number | null;
  votes_median: number | null;
  yaps_total: number;
  yaps_avg: number | null;
  yaps_median: number | null;
}

export async function contentPerformance(db: Db, w: Window, opts: { topics: string[]; limit: number }) {
  const base = windowArticles(w, opts.topics, false);
  const [sources, articles, engagement] = await Promise.all([
    sql<SourceRow>`
      WITH w AS (${base})
      SELECT source, count(*)::int AS article_count, sum(clicks)::int8 AS clicks, avg(clicks)::float8 AS avg_clicks,
             sum(votes_cast)::int8 AS votes, sum(yap_count)::int8 AS yaps
      FROM w WHERE source <> ''
      GROUP BY source ORDER BY clicks DESC, article_count DESC, source LIMIT ${opts.limit}`.execute(db),
    sql<ArticleRow>`
      WITH w AS (${windowArticles(w, opts.topics, true)})
      SELECT * FROM w ORDER BY clicks DESC, hot_score DESC, id DESC LIMIT ${opts.limit}`.execute(db),
    sql<EngagementRow>`
      WITH w AS (${base})
      SELECT count(*)::int AS articles,
             coalesce(sum(clicks), 0)::int8 AS clicks_total, avg(clicks)::float8 AS clicks_avg,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY clicks)::float8 AS clicks_median,
             coalesce(sum(votes_cast), 0)::int8 AS votes_total, avg(votes_cast)::float8 AS votes_avg,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY votes_cast)::float8 AS votes_median,
             coalesce(sum(yap_count), 0)::int8 AS yaps_total, avg(yap_count)::float8 AS yaps_avg,
             percentile_cont(0.5) WITHIN GROUP (ORDER BY yap_count)::float8 AS yaps_median
      FROM w`.execute(db),
  ]);
  return { sources: sources.rows, articles: articles.rows, engagement: engagement.rows[0] };
}
