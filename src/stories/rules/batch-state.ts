/**
 * The worker's view of the story state during one batch: the part of PostgreSQL's state that the
 * batch's items look up (postings of their lookup keys, the compared members of the stories those
 * name), read in a few set-based statements, with the batch's own assignments laid over it as they
 * are decided. Each item is looked up in this view exactly as the SQL lookup of the stored state
 * would see it after the previous items' assignments were written:
 *
 * - a posting (key -> story) counts for an item when its last seen time is within
 *   LOOKUP_WINDOW_MS before the item's time (story_keys.last_seen_at, the latest member's time
 *   among those with the key);
 * - the candidates are the MAX_CANDIDATES stories sharing most keys (ties: lower id);
 * - a story's compared members are its first one (seen_at, kind, id) and its
 *   MAX_MEMBERS_COMPARED - 1 latest ones (seen_at descending, then kind, id).
 *
 * What the view lacks (keys whose postings were not read, stories whose members were not read) it
 * reports, and the caller reads it before deciding. Stories opened in the batch get temporary ids
 * above every stored id (NEW_STORY_BASE + n, in opening order), so ties break as with the ids the
 * sequence gives them when they are written.
 */
import type { CandidateStory } from './assign.js';
import type { ItemFeatures } from './features.js';
import { LOOKUP_WINDOW_MS, MAX_MEMBERS_COMPARED, topCandidates } from './lookup.js';

/** Temporary ids of the batch's new stories start above this (stored ids are PostgreSQL integers). */
export const NEW_STORY_BASE = 2 ** 32;

/** The temporary id of the batch's `n`th new story (from 1). */
export const newStoryId = (n: number): number => NEW_STORY_BASE + n;

export interface ViewMember {
  kind: string;
  id: number;
  seenAt: number;
  features: ItemFeatures;
}

interface ViewStory {
  id: number;
  lastSeenAt: number;
  /** The compared members and possibly more, in no order. */
  members: ViewMember[];
  /** Distinct sources of its independent members, when known (null: at least the corroboration threshold, or not needed). */
  sourceKeys: Set<string> | null;
  /** Stored source count (for a story whose source keys are not known). */
  sourceCount: number;
}

export interface StoredStory {
  id: number;
  lastSeenAt: number;
  sourceCount: number;
  sourceKeys: readonly string[] | null;
  members: ViewMember[];
}

const asc = (a: ViewMember, b: ViewMember) => a.seenAt - b.seenAt || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.id - b.id);
const recentFirst = (a: ViewMember, b: ViewMember) => b.seenAt - a.seenAt || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.id - b.id);

/** A story's compared members, in time order: its first one and its latest ones (as the SQL lookup orders them). */
export function comparedOf(members: readonly ViewMember[]): ViewMember[] {
  if (members.length <= MAX_MEMBERS_COMPARED) return [...members].sort(asc);
  const first = members.reduce((a, b) => (asc(b, a) < 0 ? b : a));
  const latest = [...members].sort(recentFirst).slice(0, MAX_MEMBERS_COMPARED - 1);
  return (latest.includes(first) ? latest : [first, ...latest]).sort(asc);
}

export class BatchStoryView {
  /** key -> story -> last seen (ms) as stored; a key present here had its stored postings read. */
  private readonly postings = new Map<string, Map<number, number>>();
  /** key -> story -> last seen (ms) of the batch's assignments (written at the batch's end, or before). */
  private readonly own = new Map<string, Map<number, number>>();
  private readonly stories = new Map<number, ViewStory>();

  /** Of `keys`, those whose postings were not read yet. */
  missingKeys(keys: readonly string[]): string[] {
    return [...new Set(keys)].filter((k) => !this.postings.has(k));
  }

  /** The stored postings of `keys` (every posting seen at or after the batch's earliest lookup time). */
  addPostings(keys: readonly string[], rows: readonly { key: string; stories: readonly number[]; seen: readonly number[] }[]): void {
    for (const k of keys) if (!this.postings.has(k)) this.postings.set(k, new Map());
    for (const r of rows) {
      const p = this.postings.get(r.key)!;
      for (let i = 0; i < r.stories.length; i++) p.set(r.stories[i]!, Math.max(p.get(r.stories[i]!) ?? -Infinity, r.seen[i]!));
    }
  }

  /** The candidate story ids of an item at `at` looking up `keys` (postings must have been read). */
  ranked(keys: readonly string[], at: number): number[] {
    const since = at - LOOKUP_WINDOW_MS;
    const hits = new Map<number, number>();
    for (const k of new Set(keys)) {
      const stored = this.postings.get(k);
      const own = this.own.get(k);
      if (stored) {
        for (const [story, seen] of stored) {
          // A story is counted once per key: by its stored posting, or else by the batch's own.
          if (seen >= since || (own?.get(story) ?? -Infinity) >= since) hits.set(story, (hits.get(story) ?? 0) + 1);
        }
      }
      if (own) {
        for (const [story, seen] of own) if (seen >= since && !stored?.has(story)) hits.set(story, (hits.get(story) ?? 0) + 1);
      }
    }
    return topCandidates(hits);
  }

  /** Of `ids`, the stories whose members were not read yet. */
  missingStories(ids: readonly number[]): number[] {
    return ids.filter((id) => !this.stories.has(id));
  }

  addStories(rows: readonly StoredStory[]): void {
    for (const r of rows) {
      if (this.stories.has(r.id)) continue;
      this.stories.set(r.id, { id: r.id, lastSeenAt: r.lastSeenAt, members: r.members, sourceKeys: r.sourceKeys && new Set(r.sourceKeys), sourceCount: r.sourceCount });
    }
  }

  /** The candidates of `ids` to choose from (their members must have been read). */
  candidates(ids: readonly number[]): CandidateStory<number>[] {
    // A story without members (deleted meanwhile) is no candidate, as in the SQL lookup's join.
    return ids.flatMap((id) => {
      const s = this.stories.get(id);
      return s && s.members.length > 0 ? [{ id, lastSeenAt: s.lastSeenAt, members: comparedOf(s.members).map((m) => m.features) }] : [];
    });
  }

  /** Independent sources of a story (null when the stored count is at least the threshold the view was read with). */
  sources(storyId: number): number | null {
    const s = this.stories.get(storyId);
    return s?.sourceKeys ? s.sourceKeys.size : null;
  }

  /** The stored source count of a story in the view (0 for one opened in the batch). */
  storedSources(storyId: number): number {
    return this.stories.get(storyId)?.sourceCount ?? 0;
  }

  /** Lay an assignment over the view: the member joins the story (read, or opened by the batch with id `newStoryId(n)`), its keys post to it. */
  add(storyId: number, member: ViewMember, keys: readonly string[], copy: boolean): void {
    let s = this.stories.get(storyId);
    if (!s) {
      s = { id: storyId, lastSeenAt: member.seenAt, members: [], sourceKeys: new Set(), sourceCount: 0 };
      this.stories.set(storyId, s);
    }
    s.members.push(member);
    if (s.members.length > 2 * MAX_MEMBERS_COMPARED) s.members = comparedOf(s.members);
    s.lastSeenAt = Math.max(s.lastSeenAt, member.seenAt);
    if (!copy) s.sourceKeys?.add(member.features.sourceKey);
    for (const k of keys) {
      const p = this.own.get(k) ?? new Map<number, number>();
      p.set(storyId, Math.max(p.get(storyId) ?? -Infinity, member.seenAt));
      this.own.set(k, p);
    }
  }
}
