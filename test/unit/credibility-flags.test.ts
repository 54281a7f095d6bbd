import { describe, expect, it } from 'vitest';
import type { Override, Weighted } from '../../src/credibility/rules/model.js';
import { applyOverrides, FLAG_ID_PATTERN, flagPublicId } from '../../src/credibility/rules/overrides.js';

const w = (userId: number, weight: number): Weighted => ({ kind: 'article_vote', targetId: 1, userId, weight, reasons: ['r'] });

describe('staff decisions applied to computed weights', () => {
  const weights = [w(1, 0.25), w(2, 0.25), w(3, 0), w(4, 0.5)];

  it('drops every weight of a cleared account (flag or account decision); confirmed wins over cleared', () => {
    const overrides: Override[] = [
      { kind: 'cohort', members: [1, 2, 3], decision: 'cleared' },
      { kind: 'ring', members: [3, 9], decision: 'confirmed' },
    ];
    const out = applyOverrides({ flags: [], weights }, overrides);
    expect(out.weights.map((x) => x.userId)).toEqual([3, 4]);
    const byAccount = applyOverrides({ flags: [], weights }, [{ kind: 'account' as Override['kind'], members: [4], decision: 'cleared' }]);
    expect(byAccount.weights.map((x) => x.userId)).toEqual([1, 2, 3]);
  });

  it('leaves the detection alone without a clearing decision', () => {
    const d = { flags: [], weights };
    expect(applyOverrides(d, [])).toBe(d);
    expect(applyOverrides(d, [{ kind: 'burst', members: [1], decision: 'confirmed' }]).weights).toEqual(weights);
  });
});

describe('flag public ids', () => {
  it('are stable for the same month, kind and members in any order, and differ otherwise', () => {
    const id = flagPublicId({ month: '2025-05', kind: 'ring', members: [3, 1, 2] });
    expect(id).toMatch(FLAG_ID_PATTERN);
    expect(id.startsWith('2025-05.ring.')).toBe(true);
    expect(flagPublicId({ month: '2025-05', kind: 'ring', members: [1, 2, 3] })).toBe(id);
    expect(flagPublicId({ month: '2025-05', kind: 'ring', members: [1, 2, 4] })).not.toBe(id);
    expect(flagPublicId({ month: '2025-06', kind: 'ring', members: [1, 2, 3] })).not.toBe(id);
    expect(FLAG_ID_PATTERN.test('2025-13.ring.0123456789ab')).toBe(false);
  });
});
