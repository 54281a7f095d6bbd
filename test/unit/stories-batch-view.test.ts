/**
 * The batch's view of the story state (src/stories/rules/batch-state.ts): candidates ranked as the
 * SQL lookup ranks them, compared members chosen as it chooses them, and assignments laid over the
 * stored postings so that a later item of the batch finds a story an earlier one opened or joined.
 */
import { describe, expect, it } from 'vitest';
import { BatchStoryView, comparedOf, newStoryId, type ViewMember } from '../../src/stories/rules/batch-state.js';
import { itemFeatures } from '../../src/stories/rules/features.js';
import { LOOKUP_WINDOW_MS, MAX_CANDIDATES, MAX_MEMBERS_COMPARED } from '../../src/stories/rules/lookup.js';

const T0 = Date.parse('2026-11-20T09:00:00Z');
const H = 3600_000;
const member = (id: number, seenAt: number, kind = 'wire'): ViewMember => ({
  kind,
  id,
  seenAt,
  features: itemFeatures({ title: `Headline number ${id}`, url: null, source: `s${id}`, at: seenAt }),
});

describe('compared members', () => {
  it('are the first member and the latest ones, ties in time by kind then id, in time order', () => {
    // Two members an hour: the latest 23 are the 22 of hours 19..9 and one of hour 8.
    const ms = Array.from({ length: 40 }, (_, i) => member(i + 1, T0 + Math.floor(i / 2) * H));
    const ids = (list: ViewMember[]) => list.map((m) => `${m.kind}${m.id}`);
    const latest = Array.from({ length: 22 }, (_, i) => `wire${i + 19}`);
    const got = comparedOf([...ms].reverse());
    expect(got).toHaveLength(MAX_MEMBERS_COMPARED);
    expect(ids(got)).toEqual(['wire1', 'wire17', ...latest]);
    // An article of hour 8 comes before its wire items.
    const article = member(100, T0 + 8 * H, 'article');
    expect(ids(comparedOf([article, ...ms]))).toEqual(['wire1', 'article100', ...latest]);
    expect(ids(comparedOf(ms.slice(0, 3).reverse()))).toEqual(['wire1', 'wire2', 'wire3']);
  });
});

describe('the batch view', () => {
  it('ranks stories by shared keys seen within the window, ties to the lower id, at most MAX_CANDIDATES', () => {
    const v = new BatchStoryView();
    const rows = [
      { key: 'a', storyId: 7, lastSeenAt: T0 },
      { key: 'b', storyId: 7, lastSeenAt: T0 },
      { key: 'a', storyId: 5, lastSeenAt: T0 },
      { key: 'a', storyId: 3, lastSeenAt: T0 - LOOKUP_WINDOW_MS - 1 },
      ...Array.from({ length: 60 }, (_, i) => ({ key: 'c', storyId: 100 + i, lastSeenAt: T0 })),
    ];
    v.addPostings(
      ['a', 'b', 'c', 'd'],
      ['a', 'b', 'c'].map((key) => {
        const of = rows.filter((r) => r.key === key);
        return { key, stories: of.map((r) => r.storyId), seen: of.map((r) => r.lastSeenAt) };
      }),
    );
    expect(v.missingKeys(['a', 'd', 'e', 'e'])).toEqual(['e']);
    const ranked = v.ranked(['a', 'b', 'c'], T0 + H);
    expect(ranked.slice(0, 3)).toEqual([7, 5, 100]);
    expect(ranked).toHaveLength(MAX_CANDIDATES);
    expect(ranked).not.toContain(3);
  });

  it('lets a later item find the story an earlier item of the batch opened, with its keys and members, above every stored id', () => {
    const v = new BatchStoryView();
    v.addPostings(['bitcoin', 'etf'], [{ key: 'bitcoin', stories: [9], seen: [T0] }]);
    v.addStories([{ id: 9, lastSeenAt: T0, sourceCount: 1, sourceKeys: ['a.example'], members: [member(1, T0)] }]);
    const opened = newStoryId(1);
    const m = member(2, T0 + H);
    v.add(opened, m, ['bitcoin', 'etf', 'approval'], false);
    // 'approval' was never read from storage: the batch's own posting counts once it is.
    v.addPostings(['approval'], []);
    expect(v.ranked(['bitcoin', 'etf', 'approval'], T0 + 2 * H)).toEqual([opened, 9]);
    expect(v.ranked(['bitcoin'], T0 + 2 * H)).toEqual([9, opened]);
    expect(v.candidates([opened])).toEqual([{ id: opened, lastSeenAt: T0 + H, members: [m.features] }]);
    expect(v.sources(opened)).toBe(1);
  });

  it('counts a joining member in the story: its time, its source when independent, and the compared members', () => {
    const v = new BatchStoryView();
    const stored = Array.from({ length: MAX_MEMBERS_COMPARED }, (_, i) => member(i + 1, T0 + i * H));
    v.addStories([
      { id: 4, lastSeenAt: T0 + 23 * H, sourceCount: 1, sourceKeys: ['a.example'], members: stored },
      { id: 5, lastSeenAt: T0, sourceCount: 3, sourceKeys: null, members: [member(50, T0)] },
      { id: 6, lastSeenAt: 0, sourceCount: 0, sourceKeys: null, members: [] },
    ]);
    const late = member(99, T0 + 30 * H);
    v.add(4, late, ['x'], false);
    v.add(4, member(98, T0 + 31 * H), ['x'], true);
    const [c] = v.candidates([4]);
    expect(c!.lastSeenAt).toBe(T0 + 31 * H);
    expect(c!.members).toHaveLength(MAX_MEMBERS_COMPARED);
    expect(c!.members[0]).toEqual(stored[0]!.features);
    expect(c!.members).not.toContainEqual(stored[1]!.features);
    expect(v.sources(4)).toBe(2);
    expect(v.sources(5)).toBeNull();
    expect(v.storedSources(5)).toBe(3);
    // A story without members is no candidate; one not read is reported missing.
    expect(v.candidates([6, 5]).map((s) => s.id)).toEqual([5]);
    expect(v.missingStories([4, 6, 8])).toEqual([8]);
  });
});
