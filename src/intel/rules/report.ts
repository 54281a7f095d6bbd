/**
 * Market intelligence math (pure). The queries return aggregates; these functions turn them into the
 * documented fields.
 *
 * Article set: approved articles by publish time, sponsored posts excluded (ads must not steer
 * market intelligence). Window = (now - hours, now].
 *
 * velocity (acceleration): the window is split in two halves; with r articles in the recent half
 * and e in the earlier half, velocity = (r - e) / max(e, 1). 0 = steady, 1 = twice the earlier rate,
 * -1 = stopped; a tag that is new in the window has velocity r.
 *
 * posting_signal (0..1, for the current UTC hour): how well articles published at this hour of day
 * have done, by clicks, against the other hours. Basis: approved, non-sponsored articles published
 * between POSTING_SIGNAL_LOOKBACK_DAYS days and POSTING_SIGNAL_SETTLE_HOURS hours ago (younger ones
 * have not collected their clicks yet), grouped by UTC hour of publication. Each hour's average
 * clicks is shrunk towards the overall average by POSTING_SIGNAL_PRIOR pseudo-articles, so an hour
 * with three lucky articles does not top the chart:
 *     smoothed_h = (clicks_h + K * overall_avg) / (articles_h + K)
 * and the signal is the current hour's place between the worst and best hour:
 *     signal = (smoothed_now - min_h smoothed_h) / (max_h smoothed_h - min_h smoothed_h)
 * With no history (or every hour equal) the signal is 0.5, "no information". The basis window is
 * aligned to the start of the current UTC hour, so it is computed once per hour for every report.
 */

export const POSTING_SIGNAL_LOOKBACK_DAYS = 30;
export const POSTING_SIGNAL_SETTLE_HOURS = 24;
export const POSTING_SIGNAL_PRIOR = 5;

export const HOURS_RANGE = { min: 1, max: 168 } as const;
export const TRENDING_TOP_N = { min: 1, max: 50, default: 20 } as const;
export const REPORT_TOP_N = { min: 1, max: 50, default: 10 } as const;
export const DEFAULT_HOURS = 24;
export const MAX_TOPICS = 20;
export const TOPIC_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_TOPIC_LENGTH = 32;

export function velocity(recent: number, earlier: number): number {
  return round((recent - earlier) / Math.max(earlier, 1), 4);
}

export function round(x: number, digits = 2): number {
  if (!Number.isFinite(x)) return 0;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export interface HourBucket {
  hour: number;
  articles: number;
  clicks: number;
}

interface PostingSignal {
  value: number;
  hour_utc: number;
  lookback_days: number;
  articles: number;
  hourly: { hour: number; articles: number; avg_clicks: number; smoothed_avg_clicks: number }[];
}

export function postingSignal(buckets: HourBucket[], hourUtc: number, prior = POSTING_SIGNAL_PRIOR): PostingSignal {
  const byHour = new Map(buckets.map((b) => [b.hour, b]));
  const totalArticles = buckets.reduce((s, b) => s + b.articles, 0);
  const totalClicks = buckets.reduce((s, b) => s + b.clicks, 0);
  const overall = totalArticles > 0 ? totalClicks / totalArticles : 0;
  const hourly = Array.from({ length: 24 }, (_, hour) => {
    const b = byHour.get(hour) ?? { hour, articles: 0, clicks: 0 };
    return {
      hour,
      articles: b.articles,
      avg_clicks: b.articles > 0 ? round(b.clicks / b.articles) : 0,
      smoothed: (b.clicks + prior * overall) / (b.articles + prior),
    };
  });
  const values = hourly.map((h) => h.smoothed);
  const min = Math.min(...values);
  const max = Math.max(...values);
  const value = totalArticles === 0 || max - min < 1e-9 ? 0.5 : (hourly[hourUtc].smoothed - min) / (max - min);
  return {
    value: round(Math.min(1, Math.max(0, value)), 4),
    hour_utc: hourUtc,
    lookback_days: POSTING_SIGNAL_LOOKBACK_DAYS,
    articles: totalArticles,
    hourly: hourly.map((h) => ({ hour: h.hour, articles: h.articles, avg_clicks: h.avg_clicks, smoothed_avg_clicks: round(h.smoothed) })),
  };
}

/** Parse the `topics` query value: comma-separated tag slugs, lower-cased, de-duplicated, sorted. */
export function parseTopics(raw: string | undefined): { topics: string[] } | { error: string } {
  if (raw === undefined || raw.trim() === '') return { topics: [] };
  const parts = raw
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '');
  const bad = parts.filter((t) => t.length > MAX_TOPIC_LENGTH || !TOPIC_PATTERN.test(t));
  if (bad.length) return { error: `not tag slugs (lower-case letters, digits, single hyphens, at most ${MAX_TOPIC_LENGTH}): ${bad.slice(0, 5).join(', ')}` };
  const topics = [...new Set(parts)].sort();
  if (topics.length > MAX_TOPICS) return { error: `at most ${MAX_TOPICS} topics` };
  return { topics };
}

export interface ReportParams {
  hours: number;
  topics: string[];
  top_n: number;
}

export interface TrendingParams {
  hours: number;
  top_n: number;
}

/** Stable cache identity of a parameter set (topics already normalised by parseTopics). */
export function reportParamsId(p: ReportParams): string {
  return `h${p.hours}-n${p.top_n}-t${p.topics.join('.') || '_'}`;
}

export function trendingParamsId(p: TrendingParams): string {
  return `h${p.hours}-n${p.top_n}`;
}

/** Window bounds and the midpoint that splits it into the earlier and recent halves. */
export function windowOf(now: Date, hours: number): { from: Date; mid: Date; to: Date } {
  const to = now.getTime();
  const from = to - hours * 3600_000;
  return { from: new Date(from), mid: new Date(from + (to - from) / 2), to: new Date(to) };
}

/** Median of a sorted-or-not list (the mean of the two middle values for an even count). */
export function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
