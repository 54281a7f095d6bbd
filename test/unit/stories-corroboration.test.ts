import { describe, expect, it } from 'vitest';
import { corroborationReached, CORROBORATION_HOURS } from '../../src/stories/rules/corroboration.js';

const now = new Date('2026-12-03T12:00:00Z');
const base = { kind: 'wire' as const, sourcesBefore: 1, sourcesAfter: 2, minSources: 2, observedAt: new Date(now.getTime() - 60_000), now };

describe('corroborationReached', () => {
  it('is true only for the assignment that takes the story to the threshold', () => {
    expect(corroborationReached(base)).toBe(true);
    expect(corroborationReached({ ...base, sourcesBefore: 2, sourcesAfter: 3 })).toBe(false);
    expect(corroborationReached({ ...base, sourcesBefore: 1, sourcesAfter: 1 })).toBe(false);
    expect(corroborationReached({ ...base, sourcesBefore: 0, sourcesAfter: 1 })).toBe(false);
    expect(corroborationReached({ ...base, minSources: 3, sourcesBefore: 2, sourcesAfter: 3 })).toBe(true);
    expect(corroborationReached({ ...base, minSources: 1, sourcesBefore: 0, sourcesAfter: 1 })).toBe(true);
  });

  it('is off at 0, for articles, and for items older than the window', () => {
    expect(corroborationReached({ ...base, minSources: 0, sourcesBefore: 0 })).toBe(false);
    expect(corroborationReached({ ...base, kind: 'article' })).toBe(false);
    expect(corroborationReached({ ...base, observedAt: new Date(now.getTime() - CORROBORATION_HOURS * 3600_000 - 1) })).toBe(false);
    expect(corroborationReached({ ...base, observedAt: new Date(now.getTime() - CORROBORATION_HOURS * 3600_000) })).toBe(true);
  });
});
