/**
 * Which members of a story are copies, recomputed after an editor moved members (merge, split):
 * in time order, a member is a copy when it is the same article (same URL, syndicated slug or the
 * same headline from another source: similarity.ts) as an earlier member of the story. The
 * assigner marks copies the same way as items arrive; after a split a copy whose original stayed
 * behind becomes an independent source of its new story, and after a merge a member that repeats
 * an article of the other story becomes a copy. Pure.
 */
import type { ItemFeatures } from './features.js';
import { itemSimilarity } from './similarity.js';

const noWeight = (): number => 1;

/** Copy flags of members given in time order (oldest first). */
export function copyFlags(members: readonly ItemFeatures[]): boolean[] {
  return members.map((m, i) => members.slice(0, i).some((earlier) => itemSimilarity(m, earlier, noWeight).copy));
}
