/**
 * Response schemas of the intel endpoints: every sub-field documented (they reach the OpenAPI
 * document, and the tests parse real responses with them).
 */
import { z } from 'zod';
import { POSTING_SIGNAL_LOOKBACK_DAYS, POSTING_SIGNAL_PRIOR, POSTING_SIGNAL_SETTLE_HOURS } from './rules/report.js';
import { isoTimestamp } from '../platform/http/schemas.js';
import { mindshareLeadersSchema } from '../assets/index.js';

const d = (description: string) => ({ description });
const int = (description: string) => z.number().int().meta(d(description));
const num = (description: string) => z.number().meta(d(description));

const windowSchema = z
  .object({ from: isoTimestamp('Start of the window (exclusive), ISO 8601 UTC'), to: isoTimestamp('End of the window (inclusive): the computation time') })
  .meta(d('The time window the figures cover: the last `hours` hours before generated_at'));

const pulseFields = {
  articles_1h: int('Articles published in the last hour (approved, sponsored posts excluded)'),
  articles_6h: int('Articles published in the last 6 hours'),
  articles_24h: int('Articles published in the last 24 hours'),
};

const velocityField = num(
  'Acceleration: (recent_count - earlier_count) / max(earlier_count, 1), comparing the recent half of the window with the earlier half. 0 = steady, 1 = doubled, -1 = stopped; a tag new in the window has velocity = recent_count.',
);

const trendingTag = {
  tag: z.string().meta(d('Tag slug')),
  article_count: int('Articles in the window carrying the tag'),
  recent_count: int('Of those, published in the recent half of the window'),
  earlier_count: int('Of those, published in the earlier half of the window'),
  velocity: velocityField,
};

export const trendingSchema = z
  .object({
    generated_at: isoTimestamp('When the worker computed this result (it is served from the cache for up to INTEL_CACHE_TTL_S)'),
    parameters: z.object({ hours: int('Window length in hours (1-168)'), top_n: int('Maximum number of tags (1-50)') }).meta(d('The parameters this result was computed for')),
    window: windowSchema,
    tags: z
      .array(z.object(trendingTag).meta({ id: 'TrendingTag' }))
      .meta(d('Tags of approved, non-sponsored articles published in the window, most articles first (ties: higher velocity, then name)')),
    platform_pulse: z.object(pulseFields).meta(d('Platform-wide publishing counts, independent of `hours`')),
  })
  .meta({ id: 'IntelTrending' });

const topArticle = z
  .object({
    id: int('Article id'),
    slug: z.string(),
    headline: z.string(),
    url: z.string().meta(d('The article URL as submitted')),
    clicks: int('Lifetime clicks'),
    hot_score: num('Stored hot score (see GET /news/?sort_type=hot)'),
    published_at: isoTimestamp('Publish time'),
  })
  .nullable()
  .meta(d("The tag's article with the highest hot score in the window (ties: more clicks, newer)"));

const stat = (what: string) =>
  z
    .object({
      total: int(`Sum of ${what} over the articles`),
      avg: num(`Mean ${what} per article (2 decimals)`),
      median: num(`Median ${what} per article`),
    })
    .meta(d(`${what} of the window's articles`));

export const reportSchema = z
  .object({
    generated_at: isoTimestamp('When the worker computed this report; served from the cache for up to INTEL_CACHE_TTL_S (default 300 s) per parameter set'),
    parameters: z
      .object({
        hours: int('Window length in hours (1-168, default 24)'),
        topics: z.array(z.string()).meta(d('Tag slugs the report is restricted to (sorted, de-duplicated); empty = all tags')),
        top_n: int('Maximum entries per list (1-50, default 10)'),
      })
      .meta(d('The parameters this report was computed for')),
    window: windowSchema,
    posting_signal: num(
      `0..1: how well articles published at the current UTC hour have done by clicks compared with the other hours of the day (1 = best hour, 0 = worst, 0.5 = no information). Basis: approved, non-sponsored articles published between ${POSTING_SIGNAL_LOOKBACK_DAYS} days and ${POSTING_SIGNAL_SETTLE_HOURS} hours before the start of the current UTC hour (younger ones are still collecting clicks), grouped by UTC hour of publication; each hour's mean clicks is shrunk towards the overall mean by ${POSTING_SIGNAL_PRIOR} pseudo-articles, then min-max scaled across the 24 hours. Platform-wide: not restricted by topics or hours.`,
    ),
    posting_signal_basis: z
      .object({
        hour_utc: int('The UTC hour (0-23) posting_signal is for: the hour of generated_at'),
        lookback_days: int('History length in days'),
        settle_hours: int('Articles younger than this are left out (their clicks are still coming in)'),
        articles: int('Articles in the basis'),
        hourly: z
          .array(
            z.object({
              hour: int('UTC hour of publication (0-23)'),
              articles: int('Articles published at that hour'),
              avg_clicks: num('Their mean clicks'),
              smoothed_avg_clicks: num('Mean clicks shrunk towards the overall mean (the value that is scaled)'),
            }),
          )
          .meta(d('All 24 hours, 0 first')),
      })
      .meta(d('How posting_signal was computed, hour by hour')),
    trending_topics: z
      .array(
        z
          .object({
            ...trendingTag,
            clicks: int('Clicks of those articles, summed'),
            avg_clicks: num('Mean clicks per article'),
            avg_hot_score: num('Mean hot score of those articles'),
            max_hot_score: num('Highest hot score among them'),
            top_article: topArticle,
          })
          .meta({ id: 'TrendingTopic' }),
      )
      .meta(d('Top `top_n` tags of the window (only `topics` when given), most articles first (ties: higher velocity, then name)')),
    content_performance: z
      .object({
        top_sources: z
          .array(
            z.object({
              source: z.string().meta(d('Publisher host name (www. stripped)')),
              article_count: int('Articles from the source in the window'),
              clicks: int('Their clicks, summed'),
              avg_clicks: num('Mean clicks per article'),
              votes: int('Votes cast on them'),
              yaps: int('Comments (yaps) on them'),
            }),
          )
          .meta(d("Sources of the window's articles by total clicks (ties: more articles, then name), top `top_n`")),
        top_articles: z
          .array(
            z.object({
              id: int('Article id'),
              slug: z.string(),
              headline: z.string(),
              url: z.string(),
              source: z.string(),
              published_at: isoTimestamp('Publish time'),
              tags: z.array(z.string()),
              clicks: int('Lifetime clicks'),
              vote_count: int('Net vote score (up minus down), as in the feed'),
              votes: int('Votes cast (up and down), as in the feed'),
              yap_count: int('Comments'),
              hot_score: num('Stored hot score'),
            }),
          )
          .meta(d("The window's articles by clicks (ties: hot score, newer), top `top_n`")),
        engagement: z
          .object({
            articles: int('Articles in the window (restricted to topics when given)'),
            clicks: stat('clicks'),
            votes: stat('votes cast'),
            yaps: stat('comments (yaps)'),
          })
          .meta(d('Engagement summary over every article of the window')),
      })
      .meta(d("Performance of the window's articles (restricted to those carrying one of `topics` when given)")),
    platform_pulse: z
      .object({
        ...pulseFields,
        articles_in_window: int('Articles published in the window'),
        submissions_in_window: int('Articles submitted (created, any status) in the window'),
        avg_hot_score: num('Mean hot score of the articles published in the window'),
        review_queue_depth: int('Submissions waiting for an editor now (status submitted)'),
        social_queue_depth: int(
          'Articles an editor has queued for a future publish to the site and the social channels, now (status scheduled): the backlog of the publishing queue',
        ),
      })
      .meta(d('Platform-wide figures (not restricted by topics); the two queue depths are current counts')),
    mindshare: mindshareLeadersSchema,
  })
  .meta({ id: 'IntelReport' });
