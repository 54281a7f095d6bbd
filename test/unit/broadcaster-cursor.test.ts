import fc from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { cursorHolds, decodeCursor, encodeCursor, MAX_CURSOR_ALSO } from '../../src/stream/rules/cursor.js';
import { compareIds, parseStreamId, previousId } from '../../src/stream/rules/stream-id.js';

const id = fc.tuple(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n })).map(([a, b]) => `${a}-${b}`);
const cmpBig = (a: string, b: string) => {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  return am !== bm ? (am < bm ? -1 : 1) : as !== bs ? (as < bs ? -1 : 1) : 0;
};

describe('stream ids', () => {
  it('parses and normalises ids, rejecting anything else', () => {
    expect(parseStreamId('1700000000000-0')).toBe('1700000000000-0');
    expect(parseStreamId('0001-02')).toBe('1-2');
    for (const bad of ['', '1', '1-', '-1', '1-2-3', 'a-1', '1.5-0', '18446744073709551616-0', ' 1-0']) expect(parseStreamId(bad)).toBeNull();
  });

  it('compares like the numbers they are', () => {
    fc.assert(fc.property(id, id, (a, b) => Math.sign(compareIds(a, b)) === cmpBig(a, b)));
    expect(compareIds('9-0', '10-0')).toBeLessThan(0);
    expect(compareIds('10-9', '10-10')).toBeLessThan(0);
  });

  it('previousId is the greatest id before', () => {
    expect(previousId('5-3')).toBe('5-2');
    expect(previousId('5-0')).toBe('4-18446744073709551615');
    expect(previousId('0-0')).toBe('0-0');
    fc.assert(fc.property(id, (a) => a === '0-0' || compareIds(previousId(a), a) < 0));
  });
});

describe('cursor', () => {
  it('is the stream id alone when nothing ran ahead', () => {
    expect(encodeCursor({ upTo: '10-1', also: [] })).toBe('10-1');
    expect(decodeCursor('10-1')).toEqual({ upTo: '10-1', also: [] });
  });

  it('round-trips with ids sent ahead', () => {
    const c = { upTo: '10-1', also: ['10-5', '11-0'] };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(cursorHolds(c, '10-0')).toBe(true);
    expect(cursorHolds(c, '10-1')).toBe(true);
    expect(cursorHolds(c, '10-2')).toBe(false);
    expect(cursorHolds(c, '10-5')).toBe(true);
    expect(cursorHolds(c, '12-0')).toBe(false);
  });

  it('orders, dedupes and drops ids not after upTo', () => {
    expect(decodeCursor('10-1_11-0_10-5_11-0_9-0')).toEqual({ upTo: '10-1', also: ['10-5', '11-0'] });
  });

  it('rejects malformed and oversized cursors', () => {
    for (const bad of [
      '',
      'x',
      '10-1_',
      '10-1__11-0',
      '10-1_abc',
      Array(MAX_CURSOR_ALSO + 2)
        .fill('1-1')
        .join('_'),
    ]) {
      expect(decodeCursor(bad)).toBeNull();
    }
  });
});
