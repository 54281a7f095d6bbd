/**
 * Compute the trending result and the full report (run by the worker jobs intel-trending and
 * intel-report; the web process only reads their cached output). Field meanings are documented in
 * the OpenAPI schemas of src/intel/routes.ts and in src/intel/rules/report.ts.
 */
import type { Db } from '../platform/db.js';
import {
  POSTING_SIGNAL_LOOKBACK_DAYS,
  POSTING_SIGNAL_SETTLE_HOURS,
  postingSignal,
  round,
  velocity,
  windowOf,
  type HourBucket,
  type ReportParams,
  type TrendingParams,
} from './rules/report.js';
import { clicksByPublishHour, contentPerformance, platformFigures, pulseCounts, tagStats, type TagRow } from './queries.js';
import { isoTime } from '../platform/iso-time.js';
import type { MindshareLeaders } from '../assets/index.js';

/** Where the posting-signal basis of an hour is kept once computed (IntelCache in the worker). */
interface BasisCache {
  getBasis(hourStart: Date): Promise<HourBucket[] | null>;
  putBasis(hourStart: Date, buckets: HourBucket[]): Promise<void>;
  /** The asset-mindshare job's leading assets per window (the report's `mindshare` section). */
  mindshareLeaders?(top: number): Promise<MindshareLeaders | null>;
}

/**
 * The posting-signal basis is platform-wide and its window is aligned to the start of the UTC hour,
 * so it is the same for every report of that hour: computed once per hour, not once per report.
 */
async function postingBasis(db: Db, now: Date, cache?: BasisCache): Promise<HourBucket[]> {
  const hourStart = new Date(Math.floor(now.getTime() / 3600_000) * 3600_000);
  const hit = cache ? await cache.getBasis(hourStart) : null;
  if (hit) return hit;
  const buckets = await clicksByPublishHour(db, hourStart, POSTING_SIGNAL_LOOKBACK_DAYS, POSTING_SIGNAL_SETTLE_HOURS);
  if (cache) await cache.putBasis(hourStart, buckets);
  return buckets;
}

function trendingTag(r: TagRow) {
  return { tag: r.tag, article_count: r.article_count, recent_count: r.recent_count, earlier_count: r.earlier_count, velocity: velocity(r.recent_count, r.earlier_count) };
}

export async function computeTrending(db: Db, p: TrendingParams, now = new Date()) {
  const w = windowOf(now, p.hours);
  const [tags, pulse] = await Promise.all([tagStats(db, w, { topics: [], limit: p.top_n, withTopArticle: false }), pulseCounts(db, now)]);
  return {
    generated_at: now.toISOString(),
    parameters: { hours: p.hours, top_n: p.top_n },
    window: { from: w.from.toISOString(), to: w.to.toISOString() },
    tags: tags.map(trendingTag),
    platform_pulse: pulse,
  };
}
export type TrendingResult = Awaited<ReturnType<typeof computeTrending>>;

export async function computeReport(db: Db, p: ReportParams, now = new Date(), basisCache?: BasisCache) {
  const w = windowOf(now, p.hours);
  const [tags, perf, pulse, platform, buckets, mindshare] = await Promise.all([
    tagStats(db, w, { topics: p.topics, limit: p.top_n, withTopArticle: true }),
    contentPerformance(db, w, { topics: p.topics, limit: p.top_n }),
    pulseCounts(db, now),
    platformFigures(db, w),
    postingBasis(db, now, basisCache),
    basisCache?.mindshareLeaders ? basisCache.mindshareLeaders(p.top_n) : null,
  ]);
  const signal = postingSignal(buckets, now.getUTCHours());
  const e = perf.engagement;
  const stat = (total: number, avg: number | null, med: number | null) => ({ total, avg: round(avg ?? 0), median: round(med ?? 0) });
  return {
    generated_at: now.toISOString(),
    parameters: { hours: p.hours, topics: p.topics, top_n: p.top_n },
    window: { from: w.from.toISOString(), to: w.to.toISOString() },
    posting_signal: signal.value,
    posting_signal_basis: {
      hour_utc: signal.hour_utc,
      lookback_days: signal.lookback_days,
      settle_hours: POSTING_SIGNAL_SETTLE_HOURS,
      articles: signal.articles,
      hourly: signal.hourly,
    },
    trending_topics: tags.map((r) => ({
      ...trendingTag(r),
      clicks: r.clicks,
      avg_clicks: round(r.avg_clicks),
      avg_hot_score: round(r.avg_hot_score, 4),
      max_hot_score: round(r.max_hot_score, 4),
      top_article:
        r.top_id === null
          ? null
          : {
              id: r.top_id,
              slug: r.top_slug!,
              headline: r.top_headline!,
              url: r.top_url!,
              clicks: r.top_clicks!,
              hot_score: round(r.top_hot_score!, 4),
              published_at: isoTime(r.top_published_at!),
            },
    })),
    content_performance: {
      top_sources: perf.sources.map((s) => ({ source: s.source, article_count: s.article_count, clicks: s.clicks, avg_clicks: round(s.avg_clicks), votes: s.votes, yaps: s.yaps })),
      top_articles: perf.articles.map((a) => ({
        id: a.id,
        slug: a.slug,
        headline: a.headline,
        url: a.url,
        source: a.source,
        published_at: isoTime(a.published_at),
        tags: a.tags,
        clicks: a.clicks,
        vote_count: a.vote_count,
        votes: a.votes_cast,
        yap_count: a.yap_count,
        hot_score: round(a.hot_score, 4),
      })),
      engagement: {
        articles: e.articles,
        clicks: stat(e.clicks_total, e.clicks_avg, e.clicks_median),
        votes: stat(e.votes_total, e.votes_avg, e.votes_median),
        yaps: stat(e.yaps_total, e.yaps_avg, e.yaps_median),
      },
    },
    platform_pulse: {
      ...pulse,
      articles_in_window: platform.articles_in_window,
      submissions_in_window: platform.submissions_in_window,
      avg_hot_score: round(platform.avg_hot_score ?? 0, 4),
      review_queue_depth: platform.review_queue_depth,
      social_queue_depth: platform.social_queue_depth,
    },
    mindshare,
  };
}
export type IntelReport = Awaited<ReturnType<typeof computeReport>>;
