import { describe, expect, it } from 'vitest';
import { creditedShare } from '../../src/rewards/rules/credited.js';

describe('creditedShare', () => {
  it('is score over activity, clamped to 0..1 and rounded to 4 decimals', () => {
    expect(creditedShare('top_voters', 3, 1)).toBe(0.3333);
    expect(creditedShare('top_posters', 2, 2)).toBe(1);
    expect(creditedShare('top_yappers', 2, 5)).toBe(1);
    expect(creditedShare('top_yappers', 2, -1)).toBe(0);
  });

  it('is null on engagement and without positive activity', () => {
    expect(creditedShare('engagement', 10, 3)).toBeNull();
    expect(creditedShare('top_yappers', 0, 1)).toBeNull();
    expect(creditedShare('top_yappers', -2, 1)).toBeNull();
  });
});
