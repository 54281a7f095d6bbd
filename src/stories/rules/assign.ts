/**
 * The assignment decision for one item: which candidate story it joins, or a new story. Candidates
 * are the recent stories that share a rare word, a URL key or a slug with the item (found by the
 * story state's inverted index, in memory for replay or in PostgreSQL for the worker).
 *
 * A story's score is the best similarity of the item with any of its members (similarity.ts). The
 * item joins the best-scoring story at or above MATCH_THRESHOLD; ties go to the story seen most
 * recently, then to the lower id, so the result depends only on the input order. Below the
 * threshold it starts a story of its own. The threshold is set for precision: a wrong merge shows
 * readers one event that is really two, a missed merge only shows one event twice.
 */
import type { ItemFeatures } from './features.js';
import { itemSimilarity, type WordWeight } from './similarity.js';

export const MATCH_THRESHOLD = 0.4;

export interface CandidateStory<Id> {
  id: Id;
  lastSeenAt: number;
  members: readonly ItemFeatures[];
}

interface Decision<Id> {
  /** The story to join, or null for a new story. */
  storyId: Id | null;
  score: number;
  /** The item is a copy of a member (same URL, syndicated slug or identical headline). */
  copy: boolean;
}

export function chooseStory<Id extends string | number>(
  item: ItemFeatures,
  candidates: readonly CandidateStory<Id>[],
  weight: WordWeight,
  threshold: number = MATCH_THRESHOLD,
): Decision<Id> {
  let best: Decision<Id> = { storyId: null, score: 0, copy: false };
  let bestSeen = -Infinity;
  for (const c of candidates) {
    let score = 0;
    let copy = false;
    for (const m of c.members) {
      const s = itemSimilarity(item, m, weight);
      if (s.copy) {
        copy = true;
        score = 1;
        break;
      }
      if (s.score > score) score = s.score;
    }
    if (score < threshold) continue;
    if (score > best.score || (score === best.score && better(c, bestSeen, best.storyId))) {
      best = { storyId: c.id, score, copy };
      bestSeen = c.lastSeenAt;
    }
  }
  return best;
}

function better<Id extends string | number>(c: CandidateStory<Id>, bestSeen: number, bestId: Id | null): boolean {
  if (c.lastSeenAt !== bestSeen) return c.lastSeenAt > bestSeen;
  return bestId === null || c.id < bestId;
}
