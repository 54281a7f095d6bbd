/**
 * Bounded candidate lookup. An item is compared only with stories that share one of its rarest
 * words (at most LOOKUP_WORDS of them, by document frequency) or one of its copy keys, were seen
 * within LOOKUP_WINDOW_MS of it, and are among the MAX_CANDIDATES stories sharing most of those
 * words; of each candidate at most MAX_MEMBERS_COMPARED members are compared (the first and the
 * most recent ones). Work per item is therefore bounded whatever the number of stories.
 */
import type { ItemFeatures } from './features.js';
import { idf, TEXT_WINDOW_MS, type WordWeight } from './similarity.js';

const LOOKUP_WORDS = 8;
export const LOOKUP_WINDOW_MS = TEXT_WINDOW_MS;
export const MAX_CANDIDATES = 40;
export const MAX_MEMBERS_COMPARED = 24;
/** Of one word's postings (newest first), at most this many are read. */
export const MAX_POSTINGS_SCANNED = 2000;

/** The words to look the item up by: its rarest headline words. */
export function lookupWords(f: ItemFeatures, df: (word: string) => number): string[] {
  return [...f.words]
    .map((w, i) => ({ w, i, d: df(w) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, LOOKUP_WORDS)
    .map((x) => x.w);
}

/** The copy keys of an item, prefixed by kind so that they share one index with words. */
export function copyKeys(f: ItemFeatures): string[] {
  const keys: string[] = [];
  if (f.urlKey) keys.push(`u:${f.urlKey}`);
  if (f.slugKey) keys.push(`s:${f.slugKey}`);
  if (f.titleKey && f.words.length >= 3) keys.push(`t:${f.titleKey}`);
  return keys;
}

/** The keys an item is looked up by: its copy keys and its rarest words. */
export function lookupKeys(f: ItemFeatures, df: (word: string) => number): string[] {
  return [...copyKeys(f), ...lookupWords(f, df)];
}

/** The keys a member is indexed under in its story: its copy keys and its words. */
export function memberKeys(f: ItemFeatures): string[] {
  return [...copyKeys(f), ...f.words];
}

/** A story's lookup keys from its members: each key once per story, with its latest member's time. */
export function latestKeys(members: readonly { storyId: number; seenAt: Date; features: ItemFeatures }[]): { key: string; storyId: number; lastSeenAt: Date }[] {
  const out = new Map<string, { key: string; storyId: number; lastSeenAt: Date }>();
  for (const m of members) {
    for (const key of memberKeys(m.features)) {
      const id = `${m.storyId}\n${key}`;
      const held = out.get(id);
      if (!held) out.set(id, { key, storyId: m.storyId, lastSeenAt: m.seenAt });
      else if (m.seenAt > held.lastSeenAt) held.lastSeenAt = m.seenAt;
    }
  }
  return [...out.values()];
}

/** The members of a story worth comparing: the first one and the most recent ones. */
export function comparedMembers<T>(members: readonly T[]): T[] {
  if (members.length <= MAX_MEMBERS_COMPARED) return [...members];
  return [members[0]!, ...members.slice(members.length - (MAX_MEMBERS_COMPARED - 1))];
}

/**
 * Rank candidate story ids by the number of lookup keys they share with the item (ties: lower id),
 * the first MAX_CANDIDATES. Hit counts are small integers, so ids are bucketed by count and only
 * the buckets that reach the cut are sorted.
 */
export function topCandidates<Id extends string | number>(hits: Map<Id, number>): Id[] {
  const buckets: Id[][] = [];
  for (const [id, n] of hits) (buckets[n] ??= []).push(id);
  const out: Id[] = [];
  for (let n = buckets.length - 1; n > 0 && out.length < MAX_CANDIDATES; n -= 1) {
    const b = buckets[n];
    if (!b) continue;
    b.sort((a, c) => (a < c ? -1 : a > c ? 1 : 0));
    for (const id of b) {
      if (out.length === MAX_CANDIDATES) break;
      out.push(id);
    }
  }
  return out;
}

/** A word weight from document frequencies: `df` of `n` items contain the word. */
export function weightFrom(df: (word: string) => number, n: number): WordWeight {
  return (w) => idf(df(w), n);
}
