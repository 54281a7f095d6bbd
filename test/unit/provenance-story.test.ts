import { describe, expect, it } from 'vitest';
import { buildCheckResult, type MatchInput, type StorySummary } from '../../src/provenance/rules/check.js';

const now = new Date('2026-06-01T12:00:00Z');
const at = (h: number) => new Date(now.getTime() - h * 3600_000);
const match = (id: number, similarity: number, hoursAgo: number): MatchInput => ({
  id,
  headline: `h${id}`,
  source: 's',
  normalized_url: `u${id}`,
  seen_at: at(hoursAgo),
  similarity,
  method: 'headline',
});
const summary = (id: number): StorySummary => ({ id, first_seen_at: at(30), member_count: id, source_count: 1 });

describe('the check result story', () => {
  const base = { normalizedUrl: null, receipts: [], methods: ['headline' as const], now };

  it('is the story of the best-ranked match that has one; each match has its own story_id', () => {
    const matches = [match(1, 0.7, 2), match(2, 0.9, 3), match(3, 0.8, 4)];
    const stories = {
      byArticle: new Map([
        [1, 10],
        [2, null],
        [3, 30],
      ]),
      wireStory: 40,
      summaries: new Map([10, 30, 40].map((i) => [i, summary(i)])),
    };
    const r = buildCheckResult({ ...base, matches, stories });
    expect(r.matches.map((m) => [m.news_id, m.story_id])).toEqual([
      [2, null],
      [3, 30],
      [1, 10],
    ]);
    expect(r.story).toEqual({ id: 30, first_seen_at: at(30).toISOString(), member_count: 30, source_count: 1 });
    expect(r.verdict).toBe(buildCheckResult({ ...base, matches }).verdict);
  });

  it("falls back to a wire item's story, and is null without any", () => {
    const stories = { byArticle: new Map([[1, null]]), wireStory: 40, summaries: new Map([[40, summary(40)]]) };
    expect(buildCheckResult({ ...base, matches: [match(1, 0.9, 1)], stories }).story?.id).toBe(40);
    expect(buildCheckResult({ ...base, matches: [match(1, 0.9, 1)] }).story).toBeNull();
    expect(buildCheckResult({ ...base, matches: [match(1, 0.9, 1)] }).matches[0]!.story_id).toBeNull();
  });
});
