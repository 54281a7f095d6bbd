import fc from '../support/property.js';
import { describe, expect, it } from 'vitest';
import {
  addMonths,
  allocationTokens,
  allocationUnits,
  computeDrops,
  DEFAULT_ALLOCATION_BP,
  estimateEarnings,
  monthOf,
  monthRange,
  percentToBp,
  POOL_UNITS,
  splitExact,
  TOKEN_UNIT,
  validateAllocation,
} from '../../src/rewards/rules/rewards.js';

describe('allocation', () => {
  it('the default split gives 250,000 tokens to each category and the units add up to the pool', () => {
    expect(allocationTokens(DEFAULT_ALLOCATION_BP)).toEqual({ top_posters: 250_000, top_yappers: 250_000, top_voters: 250_000, top_editors: 250_000 });
    const u = allocationUnits({ top_posters: 4000, top_yappers: 2550, top_voters: 1450, top_editors: 2000 });
    expect(u.top_yappers).toBe(255_000n * TOKEN_UNIT);
    expect(u.top_posters + u.top_yappers + u.top_voters + u.top_editors).toBe(POOL_UNITS);
  });

  it('parses percentages with up to two decimals and rejects the rest', () => {
    expect(percentToBp('40')).toBe(4000);
    expect(percentToBp('12.5')).toBe(1250);
    expect(percentToBp('12.34%')).toBe(1234);
    expect(percentToBp('100')).toBe(10_000);
    for (const bad of ['', '-1', '100.01', '1.234', 'abc', '1e2']) expect(percentToBp(bad)).toBeNull();
  });

  it('requires the four categories to add up to exactly 100%', () => {
    expect(validateAllocation({ top_posters: 4000, top_yappers: 3000, top_voters: 2000, top_editors: 1000 })).toBeNull();
    expect(validateAllocation({ top_posters: 4000, top_yappers: 3000, top_voters: 2000, top_editors: 999 })).toMatch(/100 percent/);
  });
});

describe('estimate', () => {
  it('is category_allocation * market_share / 100 per category, total the sum', () => {
    const tokens = allocationTokens({ top_posters: 4000, top_yappers: 3000, top_voters: 2000, top_editors: 1000 });
    const e = estimateEarnings(tokens, { top_posters: 25, top_yappers: 10, top_voters: 0, top_editors: 100 / 3 });
    expect(e.breakdown).toEqual({ top_posters: 100_000, top_yappers: 30_000, top_voters: 0, top_editors: 33_333.333333 });
    expect(e.total).toBe(163_333.333333);
  });

  it('a user with no activity anywhere is estimated at 0', () => {
    const e = estimateEarnings(allocationTokens(DEFAULT_ALLOCATION_BP), { top_posters: 0, top_yappers: 0, top_voters: 0, top_editors: 0 });
    expect(e).toEqual({ total: 0, breakdown: { top_posters: 0, top_yappers: 0, top_voters: 0, top_editors: 0 } });
  });
});

describe('exact split (largest remainder)', () => {
  it('three equal participants: the one leftover unit goes to the lowest user id', () => {
    const parts = splitExact(100n, [
      { userId: 9, weight: 1n },
      { userId: 3, weight: 1n },
      { userId: 5, weight: 1n },
    ]);
    expect(parts.get(3)).toBe(34n);
    expect(parts.get(5)).toBe(33n);
    expect(parts.get(9)).toBe(33n);
  });

  it('leftover units go to the largest remainders first', () => {
    // 10 * 2/7 = 2.857, 10 * 5/7 = 7.142: floors 2 + 7 = 9, the unit goes to the .857 one.
    const parts = splitExact(10n, [
      { userId: 1, weight: 2n },
      { userId: 2, weight: 5n },
    ]);
    expect(parts.get(1)).toBe(3n);
    expect(parts.get(2)).toBe(7n);
  });

  it('participants with zero or negative weight get nothing; nobody eligible means nothing is paid', () => {
    expect(
      splitExact(10n, [
        { userId: 1, weight: 0n },
        { userId: 2, weight: -3n },
      ]).size,
    ).toBe(0);
    expect([
      ...splitExact(10n, [
        { userId: 1, weight: 0n },
        { userId: 2, weight: 4n },
      ]),
    ]).toEqual([[2, 10n]]);
  });

  it('always adds up to the total exactly, each part within one unit of its exact share', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.uniqueArray(fc.record({ userId: fc.integer({ min: 1, max: 1e6 }), weight: fc.bigInt({ min: 1n, max: 10n ** 6n }) }), {
          minLength: 1,
          maxLength: 60,
          selector: (p) => p.userId,
        }),
        (total, participants) => {
          const parts = splitExact(total, participants);
          const sum = [...parts.values()].reduce((s, x) => s + x, 0n);
          expect(sum).toBe(total);
          const W = participants.reduce((s, p) => s + p.weight, 0n);
          for (const p of participants) {
            const got = parts.get(p.userId) ?? 0n;
            const floor = (total * p.weight) / W;
            expect(got === floor || got === floor + 1n).toBe(true);
          }
        },
      ),
    );
  });

  it('computeDrops pays every category with participants exactly its allocation and sums per user', () => {
    const r = computeDrops(DEFAULT_ALLOCATION_BP, {
      top_posters: [
        { userId: 1, weight: 3n },
        { userId: 2, weight: 3n },
        { userId: 3, weight: 1n },
      ],
      top_yappers: [{ userId: 2, weight: 7n }],
      top_voters: [
        { userId: 1, weight: 11n },
        { userId: 3, weight: 13n },
      ],
      top_editors: [],
    });
    const quarter = 250_000n * TOKEN_UNIT;
    expect(r.totals.top_posters).toEqual({ allocated: quarter, distributed: quarter, recipients: 3 });
    expect(r.totals.top_yappers.distributed).toBe(quarter);
    expect(r.totals.top_voters.distributed).toBe(quarter);
    expect(r.totals.top_editors).toEqual({ allocated: quarter, distributed: 0n, recipients: 0 });
    expect(r.totalDistributed).toBe(3n * quarter);
    const u2 = r.drops.find((d) => d.userId === 2)!;
    expect(u2.amount).toBe(u2.breakdown.top_posters + u2.breakdown.top_yappers);
    expect(r.drops.reduce((s, d) => s + d.amount, 0n)).toBe(r.totalDistributed);
  });
});

describe('months (UTC)', () => {
  it('steps across years and bounds a month in UTC', () => {
    expect(addMonths('2026-12', 1)).toBe('2027-01');
    expect(addMonths('2026-01', -1)).toBe('2025-12');
    expect(monthOf(new Date('2026-03-31T23:59:59.999Z'))).toBe('2026-03');
    expect(monthRange('2024-02')).toEqual({ start: new Date('2024-02-01T00:00:00Z'), end: new Date('2024-03-01T00:00:00Z') });
  });
});
