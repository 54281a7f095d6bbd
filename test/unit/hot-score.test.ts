import fc from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { debouncedHotScoreJob } from '../../src/articles/rules/hot-score.js';
import { hotScoresJobId, payload } from '../../jobs/hot-scores.js';
import { explainHotTerms, HOT, hotScore, yapQuality } from '../../src/articles/rules/hot-score.js';

const base = { votes: 0, yapAuthorBestScores: [] as number[], clicks: 0, ageHours: 0 };

describe('hot score', () => {
  it('a fresh unvoted article scores 100 / 2^1.8 = 28.7', () => {
    const t = hotScore(base);
    expect(t.points).toBe(1);
    expect(t.decay).toBeCloseTo(Math.pow(2, 1.8), 10);
    expect(t.score).toBeCloseTo(28.72, 2);
  });

  it('more votes rank higher at the same age; older ranks lower with the same votes', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 500 }), fc.integer({ min: 1, max: 50 }), fc.double({ min: 0, max: 500, noNaN: true }), (v, dv, age) => {
        const a = hotScore({ ...base, votes: v, ageHours: age }).score;
        const b = hotScore({ ...base, votes: v + dv, ageHours: age }).score;
        expect(b).toBeGreaterThanOrEqual(a);
        const older = hotScore({ ...base, votes: v, ageHours: age + 1 }).score;
        expect(older).toBeLessThanOrEqual(a);
      }),
    );
  });

  it('net-downvoted articles bottom out at 0 and never go negative', () => {
    expect(hotScore({ ...base, votes: -1 }).score).toBe(0);
    expect(hotScore({ ...base, votes: -40, clicks: 1000 }).score).toBe(0);
  });

  it('yap quality: positive best scores only, capped per author, half a vote each', () => {
    expect(yapQuality([])).toBe(0);
    expect(yapQuality([-1, 0])).toBe(0); // a bot's -1 and an unvoted cyborg 0 add nothing
    expect(yapQuality([1])).toBe(0.5);
    expect(yapQuality([10])).toBe(HOT.YAP_WEIGHT * HOT.YAP_AUTHOR_CAP);
    expect(yapQuality([1, 2, 3])).toBe(3);
  });

  it('clicks are damped: 1,000 clicks are worth about 2.5 votes', () => {
    expect(hotScore({ ...base, clicks: 1000 }).click_term).toBeCloseTo(2.49, 2);
    expect(hotScore({ ...base, clicks: 0 }).click_term).toBe(0);
  });

  it('a well-voted article of 12 h still beats a fresh unvoted one only with enough votes (gravity 1.8)', () => {
    const fresh = hotScore(base).score;
    expect(hotScore({ ...base, votes: 10, ageHours: 12 }).score).toBeLessThan(fresh);
    expect(hotScore({ ...base, votes: 40, ageHours: 12 }).score).toBeGreaterThan(fresh);
  });

  it('explains itself term by term', () => {
    const s = explainHotTerms(hotScore({ votes: 12, yapAuthorBestScores: [3], clicks: 7, ageHours: 5 }));
    expect(s).toBe('votes 12 + yaps 1.5 + clicks 0.75 = engagement 14.25; 100 x max(0, 1 + 14.25) / (5 h + 2)^1.8 = 45.93');
  });
});

describe('debounced hot-score job ids', () => {
  const idOf = (j: ReturnType<typeof debouncedHotScoreJob>) => hotScoresJobId(payload.parse(j.payload));

  it('one id per article per window, due at the end of the window', () => {
    const w = 5000;
    const a = debouncedHotScoreJob(7, 1_000_000, w);
    const b = debouncedHotScoreJob(7, 1_004_999, w);
    const c = debouncedHotScoreJob(7, 1_005_000, w);
    expect(idOf(a)).toBeDefined();
    expect(idOf(a)).toBe(idOf(b));
    expect(idOf(c)).not.toBe(idOf(a));
    expect(idOf(debouncedHotScoreJob(8, 1_000_000, w))).not.toBe(idOf(a));
    expect(a.delayMs).toBe(5000);
    expect(b.delayMs).toBe(1);
    expect(idOf(a)).not.toContain(':');
  });

  it('window 0 means no debounce: no job id (BullMQ numbers each job), no delay', () => {
    const a = debouncedHotScoreJob(7, 1000, 0);
    expect(idOf(a)).toBeUndefined();
    expect(a.delayMs).toBe(0);
  });
});
