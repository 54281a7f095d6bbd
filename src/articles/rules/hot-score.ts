/**
 * The hot score behind `sort_type=hot`. A gravity formula in the family of Hacker News and Lemmy
 * (points divided by a power of age), with two engagement signals beyond votes: yap quality
 * (Lobsters counts comments) and clicks.
 *
 *   votes        V = vote_count, the net article votes (upvotes minus downvotes).
 *   yap quality  Y = YAP_WEIGHT x sum, over the distinct yap authors other than the submitter, of
 *                    their best yap's score clamped to [0, YAP_AUTHOR_CAP]. A bot's -1 yap or a
 *                    cyborg's unvoted 0 adds nothing; ten yaps by one author count as one; the
 *                    submitter cannot talk their own story up (Lobsters excludes the submitter too).
 *   clicks       C = CLICK_WEIGHT x log2(1 + clicks). Clicks are cheap to fake and a catchy headline
 *                    draws them, so they are damped hard: 1,000 clicks are worth about 2.5 votes.
 *   engagement   E = V + Y + C
 *   points       P = max(0, 1 + E). The 1 stands for the submission itself (Hacker News counts the
 *                    submitter's own upvote), so unvoted articles still rank among themselves by
 *                    recency; a net-downvoted article (E <= -1) scores 0 and sinks. Points are linear,
 *                    as on Hacker News: 10 votes are worth ten times one vote. (Lemmy takes a log10
 *                    here; with the small vote counts of a curated feed, that let any fresh unvoted
 *                    article outrank a well-voted one a few hours older.)
 *   age          h = hours since published_at (created_at while not yet published), >= 0.
 *   decay        D = (h + AGE_OFFSET_HOURS) ^ GRAVITY, Hacker News' offset 2 h and gravity 1.8:
 *                    a 12-hour-old article needs about 33 times the points of a fresh one to rank
 *                    level with it, a day-old one about 100 times.
 *   hot          H = SCALE x P / D    (SCALE only makes the numbers readable: fresh and unvoted = 28.7)
 *
 * The stored value is recomputed by jobs/hot-scores.ts in one set-based UPDATE (src/articles/hot-score-queries.ts
 * holds the SQL twin of this function; a test checks that the two agree). Articles whose age passed
 * HOT_SCORE_WINDOW_HOURS keep their last score, which by then is tiny (Lemmy does the same).
 */

export const HOT = {
  YAP_WEIGHT: 0.5,
  YAP_AUTHOR_CAP: 3,
  CLICK_WEIGHT: 0.25,
  SUBMISSION_POINT: 1,
  AGE_OFFSET_HOURS: 2,
  GRAVITY: 1.8,
  SCALE: 100,
} as const;

interface HotInputs {
  /** Net article votes (vote_count). */
  votes: number;
  /** Best yap score of each distinct non-submitter author. */
  yapAuthorBestScores: number[];
  clicks: number;
  ageHours: number;
}

/** The terms of an article's score, as stored in article_hot_scores (a column each) and shown in the full record. */
export interface HotTerms {
  votes: number;
  yap_quality: number;
  click_term: number;
  engagement: number;
  points: number;
  age_hours: number;
  decay: number;
  score: number;
}

export function yapQuality(bestScores: number[]): number {
  const sum = bestScores.reduce((s, b) => s + Math.min(Math.max(b, 0), HOT.YAP_AUTHOR_CAP), 0);
  return HOT.YAP_WEIGHT * sum;
}

export function hotScore(i: HotInputs): HotTerms {
  const Y = yapQuality(i.yapAuthorBestScores);
  const C = HOT.CLICK_WEIGHT * Math.log2(1 + Math.max(0, i.clicks));
  const E = i.votes + Y + C;
  const P = Math.max(0, HOT.SUBMISSION_POINT + E);
  const h = Math.max(0, i.ageHours);
  const D = Math.pow(h + HOT.AGE_OFFSET_HOURS, HOT.GRAVITY);
  return { votes: i.votes, yap_quality: Y, click_term: C, engagement: E, points: P, age_hours: h, decay: D, score: (HOT.SCALE * P) / D };
}

/** A one-line explanation for editors, e.g. "votes 12 + yaps 1.5 + clicks 0.75 = engagement 14.25; 100 x max(0, 1 + 14.25) / (5 h + 2)^1.8 = 45.93". */
export function explainHotTerms(t: HotTerms): string {
  const f = (n: number) => (Math.round(n * 100) / 100).toString();
  return (
    `votes ${f(t.votes)} + yaps ${f(t.yap_quality)} + clicks ${f(t.click_term)} = engagement ${f(t.engagement)}; ` +
    `${HOT.SCALE} x max(0, ${HOT.SUBMISSION_POINT} + ${f(t.engagement)}) / (${f(t.age_hours)} h + ${HOT.AGE_OFFSET_HOURS})^${HOT.GRAVITY} = ${f(t.score)}`
  );
}

/** The hot-scores job's payload for a debounced one-article recompute. */
interface DebouncedRecompute {
  article_ids: number[];
  all: boolean;
  /** Debounce window number: one job per article and window. */
  window?: number;
}

/**
 * Payload and delay of the debounced recompute for an article: one job per article per window,
 * delayed to the window's end, so a burst of votes costs one recompute that includes the last vote.
 */
export function debouncedHotScoreJob(articleId: number, nowMs: number, windowMs: number): { payload: DebouncedRecompute; delayMs: number } {
  if (windowMs <= 0) return { payload: { article_ids: [articleId], all: false }, delayMs: 0 };
  const window = Math.floor(nowMs / windowMs);
  return { payload: { article_ids: [articleId], all: false, window }, delayMs: (window + 1) * windowMs - nowMs };
}
