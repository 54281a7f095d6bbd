import fc from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { DUPLICATE_WINDOW_MS, STALE_AFTER_MS, provenanceVerdict } from '../../src/provenance/rules/verdict.js';

const now = new Date('2026-11-22T12:00:00Z');
const H = 3600 * 1000;
const D = 24 * H;
const ago = (ms: number) => new Date(now.getTime() - ms);

describe('provenance verdict (spec rules with controlled timestamps)', () => {
  it('rule 1 new: no matches', () => {
    expect(provenanceVerdict([], now)).toBe('new');
  });

  it('rule 2 known: exactly one match (recent or a few days old)', () => {
    expect(provenanceVerdict([ago(1 * H)], now)).toBe('known');
    expect(provenanceVerdict([ago(3 * D)], now)).toBe('known');
    expect(provenanceVerdict([ago(7 * D)], now)).toBe('known'); // exactly 7 days is not "older than 7 days"
  });

  it('rule 2 known: an older single confirmation (2+ matches, latest between 24 h and 7 days)', () => {
    expect(provenanceVerdict([ago(2 * D), ago(5 * D)], now)).toBe('known');
    expect(provenanceVerdict([ago(DUPLICATE_WINDOW_MS), ago(3 * D)], now)).toBe('known'); // exactly 24 h is not younger
    expect(provenanceVerdict([ago(8 * D), ago(6 * D)], now)).toBe('known');
  });

  it('rule 3 duplicate: 2+ matches with the latest younger than 24 hours', () => {
    expect(provenanceVerdict([ago(1 * H), ago(2 * H)], now)).toBe('duplicate');
    expect(provenanceVerdict([ago(DUPLICATE_WINDOW_MS - 1), ago(20 * D)], now)).toBe('duplicate');
    expect(provenanceVerdict([ago(10 * D), ago(9 * D), ago(5 * H)], now)).toBe('duplicate');
  });

  it('rule 4 stale: all matches older than 7 days (also for a single match: stale beats known)', () => {
    expect(provenanceVerdict([ago(STALE_AFTER_MS + 1)], now)).toBe('stale');
    expect(provenanceVerdict([ago(8 * D), ago(20 * D), ago(29 * D)], now)).toBe('stale');
  });

  it('treats a future observation time (clock skew) as young', () => {
    expect(provenanceVerdict([new Date(now.getTime() + H), ago(H)], now)).toBe('duplicate');
    expect(provenanceVerdict([new Date(now.getTime() + H)], now)).toBe('known');
  });

  it('always yields exactly one of the four verdicts and agrees with the rules', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -2 * D, max: 40 * D }), { maxLength: 6 }), (ages) => {
        const expected =
          ages.length === 0 ? 'new' : ages.every((a) => a > STALE_AFTER_MS) ? 'stale' : ages.length >= 2 && Math.min(...ages) < DUPLICATE_WINDOW_MS ? 'duplicate' : 'known';
        expect(provenanceVerdict(ages.map(ago), now)).toBe(expected);
      }),
    );
  });
});
