/**
 * Wire promotion scores. novelty = 1 - (how well the story is already covered): 0 when its
 * normalised URL is already an article of the lookback window in one of COVERED_STATUSES, otherwise
 * 1 - the best headline similarity among those articles. score = novelty x the source's weight. Pure.
 */

/** Article statuses that already cover a story for promotion purposes. */
export const COVERED_STATUSES = ['approved', 'submitted', 'scheduled'] as const;

/** Only items ingested within this many hours are promoted. */
export const CANDIDATE_HOURS = 24;

/** Scores and novelty are kept to four decimals. */
function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

/** Novelty from the best headline similarity (0..1) among covering articles. */
export function noveltyFromSimilarity(bestSimilarity: number): number {
  return round4(1 - bestSimilarity);
}

/** An item's score: its novelty weighted by its source (0..10, default 1). */
export function promotionScore(novelty: number, weight: number): number {
  return round4(novelty * weight);
}
