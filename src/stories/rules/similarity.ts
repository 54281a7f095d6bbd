/**
 * How alike two items are, in [0, 1], and why. An item is compared with the members of candidate
 * stories (assign.ts); this is the pairwise part.
 *
 * - Same article: equal URL keys within COPY_WINDOW_MS, the same descriptive slug on another host
 *   (syndication) within the same window, or the same headline words within it: score 1, `copy`.
 * - Otherwise the words of the two headlines are compared, each word weighted by its rarity
 *   (`weight`, an inverse document frequency kept by the story state): the weight of the shared
 *   words over the geometric mean of each side's total (a weighted cosine of word sets). Figures
 *   move the score: a shared figure ("$44M" in both) adds FIGURE_BONUS, figures on both sides with
 *   none in common ("$1.9B" vs "$4.4B": last week's and this week's fund flows) multiply it by
 *   FIGURE_CONFLICT_FACTOR.
 * - Page text or feed summaries, when both items have them, may raise the score (the mean of the
 *   headline score and the text score, when that is higher) but never lower it: headlines alone
 *   must carry the assignment.
 * - Items further apart in time than TEXT_WINDOW_MS score 0 on words.
 */
import type { ItemFeatures } from './features.js';
import { sameAmount } from './text.js';

const COPY_WINDOW_MS = 48 * 3600_000;
export const TEXT_WINDOW_MS = 72 * 3600_000;
const FIGURE_BONUS = 0.1;
/** A headline of fewer words ("On the hour") says too little to be matched on words. */
const MIN_WORDS = 2;
const FIGURE_CONFLICT_FACTOR = 0.6;
/**
 * Two pieces of one outlet that are not copies are more often two stories told in the outlet's
 * template ("US stocks rise as …", "Best crypto exchanges of …") than one story told twice.
 */
const SAME_SOURCE_FACTOR = 0.75;

export type WordWeight = (word: string) => number;

interface Similarity {
  score: number;
  /** True when the two are the same article (URL, slug or identical headline). */
  copy: boolean;
}

export function itemSimilarity(a: ItemFeatures, b: ItemFeatures, weight: WordWeight): Similarity {
  const dt = Math.abs(a.at - b.at);
  if (dt <= COPY_WINDOW_MS && isCopy(a, b)) return { score: 1, copy: true };
  if (dt > TEXT_WINDOW_MS || a.words.length < MIN_WORDS || b.words.length < MIN_WORDS || a.evergreen || b.evergreen) {
    return { score: 0, copy: false };
  }
  let score = figureAdjusted(weightedCosine(a.words, b.words, weight), a.figures, b.figures);
  if (a.textWords.length > 0 && b.textWords.length > 0) {
    const text = weightedCosine([...a.words, ...a.textWords], [...b.words, ...b.textWords], weight);
    score = Math.max(score, (score + text) / 2);
  }
  if (a.sourceKey === b.sourceKey) score *= SAME_SOURCE_FACTOR;
  return { score: Math.min(1, score), copy: false };
}

function isCopy(a: ItemFeatures, b: ItemFeatures): boolean {
  if (a.urlKey !== null && a.urlKey === b.urlKey) return true;
  if (a.slugKey !== null && a.slugKey === b.slugKey) return true;
  // One outlet reuses a title for different pieces (a daily column, "On the hour"): an identical
  // headline makes a copy only across sources. Outlets title their buyer's guides alike ("10 Best
  // Crypto Exchanges and Apps of December 2023"): an evergreen headline is a copy only by its URL.
  if (a.evergreen || b.evergreen) return false;
  return a.titleKey !== '' && a.titleKey === b.titleKey && a.words.length >= 3 && a.sourceKey !== b.sourceKey;
}

function weightedCosine(a: readonly string[], b: readonly string[], weight: WordWeight): number {
  if (a.length === 0 || b.length === 0) return 0;
  const bs = new Set(b);
  let shared = 0;
  let wa = 0;
  for (const w of a) {
    const x = weight(w);
    wa += x;
    if (bs.has(w)) shared += x;
  }
  if (shared === 0) return 0;
  let wb = 0;
  for (const w of bs) wb += weight(w);
  return shared / Math.sqrt(wa * wb);
}

function figureAdjusted(score: number, fa: readonly number[], fb: readonly number[]): number {
  if (score === 0 || fa.length === 0 || fb.length === 0) return score;
  const shared = fa.some((x) => fb.some((y) => sameAmount(x, y)));
  return shared ? score + FIGURE_BONUS : score * FIGURE_CONFLICT_FACTOR;
}

/**
 * Inverse document frequency: rare words weigh more. `df` items of `n` contain the word. IDF_PRIOR
 * items in which no word occurs are added to `n`, so that a young state (a replay's first items, a
 * fresh database) does not weigh a word seen once far below a word never seen.
 */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n + IDF_PRIOR) / (df + 1));
}

const IDF_PRIOR = 200;
