/**
 * The story state in memory: what replay, the bench and the unit tests assign with. It holds the
 * same things the worker reads from PostgreSQL (stories with their members' features, an inverted
 * index from words and copy keys to stories, document frequencies) and applies the same rules
 * (lookup.ts, assign.ts), so replay measures the production assigner.
 */
import { chooseStory, MATCH_THRESHOLD, type CandidateStory } from './assign.js';
import { itemFeatures, type ItemFeatures, type StoryItemInput } from './features.js';
import { comparedMembers, LOOKUP_WINDOW_MS, lookupKeys, MAX_POSTINGS_SCANNED, memberKeys, topCandidates, weightFrom } from './lookup.js';

interface MemoryStory extends CandidateStory<number> {
  members: ItemFeatures[];
  firstSeenAt: number;
}

interface Assignment {
  storyId: number;
  score: number;
  copy: boolean;
}

export class MemoryStoryState {
  private readonly stories = new Map<number, MemoryStory>();
  private readonly index = new Map<string, number[]>();
  private readonly df = new Map<string, number>();
  private items = 0;
  private nextId = 1;

  constructor(private readonly threshold: number = MATCH_THRESHOLD) {}

  /** Assign one item (in arrival order) and return its story. */
  assign(input: StoryItemInput): Assignment {
    const f = itemFeatures(input);
    const dfOf = (w: string): number => this.df.get(w) ?? 0;
    const candidates = this.candidates(f, dfOf);
    const decision = chooseStory(f, candidates, weightFrom(dfOf, Math.max(this.items, 1)), this.threshold);
    const storyId = decision.storyId ?? this.nextId++;
    this.add(storyId, f);
    return { storyId, score: decision.score, copy: decision.copy };
  }

  private candidates(f: ItemFeatures, dfOf: (w: string) => number): CandidateStory<number>[] {
    const hits = new Map<number, number>();
    for (const key of lookupKeys(f, dfOf)) {
      const postings = this.index.get(key) ?? [];
      const seen = new Set<number>();
      for (let i = postings.length - 1; i >= 0 && i >= postings.length - MAX_POSTINGS_SCANNED; i -= 1) {
        const id = postings[i]!;
        if (seen.has(id)) continue;
        seen.add(id);
        const s = this.stories.get(id)!;
        if (Math.abs(s.lastSeenAt - f.at) > LOOKUP_WINDOW_MS && Math.abs(s.firstSeenAt - f.at) > LOOKUP_WINDOW_MS) continue;
        hits.set(id, (hits.get(id) ?? 0) + 1);
      }
    }
    return topCandidates(hits).map((id) => {
      const s = this.stories.get(id)!;
      return { id, lastSeenAt: s.lastSeenAt, members: comparedMembers(s.members) };
    });
  }

  private add(storyId: number, f: ItemFeatures): void {
    let s = this.stories.get(storyId);
    if (!s) {
      s = { id: storyId, lastSeenAt: f.at, firstSeenAt: f.at, members: [] };
      this.stories.set(storyId, s);
    }
    s.members.push(f);
    s.lastSeenAt = Math.max(s.lastSeenAt, f.at);
    s.firstSeenAt = Math.min(s.firstSeenAt, f.at);
    for (const key of memberKeys(f)) {
      const list = this.index.get(key) ?? [];
      if (list[list.length - 1] !== storyId) list.push(storyId);
      this.index.set(key, list);
    }
    for (const w of f.words) this.df.set(w, (this.df.get(w) ?? 0) + 1);
    this.items += 1;
  }
}
