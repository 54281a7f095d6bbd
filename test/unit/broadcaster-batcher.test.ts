import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Batcher } from '../../src/stream/batcher.js';
import type { Cursor } from '../../src/stream/rules/cursor.js';
import type { StreamItem } from '../../src/stream/rules/frames.js';

const item = (n: number, sponsored = false): StreamItem => ({
  id: `100-${n}`,
  type: sponsored ? 'news.sponsored' : 'news.approved',
  json: `{"id":${n}}`,
  staffOnly: false,
  sponsored,
  eventId: null,
  attrs: null,
});

let emitted: { ids: string[]; cursor: Cursor; at: number }[];
let batcher: Batcher;

beforeEach(() => {
  vi.useFakeTimers();
  emitted = [];
  batcher = new Batcher({ batchMs: 200, batchMax: 10 }, (items, cursor) => emitted.push({ ids: items.map((i) => i.id), cursor, at: Date.now() }));
});
afterEach(() => {
  batcher.close();
  vi.useRealTimers();
});

describe('Batcher', () => {
  it('flushes 200 ms after the first event of a batch', () => {
    const t0 = Date.now();
    batcher.push(item(1));
    vi.advanceTimersByTime(150);
    batcher.push(item(2));
    vi.advanceTimersByTime(49);
    expect(emitted).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(emitted).toEqual([{ ids: ['100-1', '100-2'], cursor: { upTo: '100-2', also: [] }, at: t0 + 200 }]);
  });

  it('flushes at once when 10 are queued, and starts a fresh window after', () => {
    for (let n = 1; n <= 12; n++) batcher.push(item(n));
    expect(emitted).toHaveLength(1);
    expect(emitted[0].ids).toHaveLength(10);
    vi.advanceTimersByTime(200);
    expect(emitted.map((e) => e.ids.length)).toEqual([10, 2]);
  });

  it('sends a sponsored event alone and ahead of the pending batch', () => {
    batcher.push(item(1));
    batcher.push(item(2));
    batcher.push(item(3, true));
    expect(emitted).toEqual([{ ids: ['100-3'], cursor: { upTo: '100-0', also: ['100-3'] }, at: expect.any(Number) }]);
    batcher.push(item(4));
    batcher.push(item(5, true));
    expect(emitted[1].cursor).toEqual({ upTo: '100-0', also: ['100-3', '100-5'] });
    vi.advanceTimersByTime(200);
    expect(emitted[2]).toMatchObject({ ids: ['100-1', '100-2', '100-4'], cursor: { upTo: '100-5', also: [] } });
  });

  it('gives a sponsored event with nothing pending its own id as cursor', () => {
    batcher.push(item(7, true));
    expect(emitted[0].cursor).toEqual({ upTo: '100-7', also: [] });
    expect(batcher.lastId()).toBe('100-7');
  });

  it('flushes the batch first rather than let a cursor grow without bound', () => {
    batcher.push(item(0));
    for (let n = 1; n <= 40; n++) batcher.push(item(n, true));
    for (const e of emitted) expect(e.cursor.also.length).toBeLessThanOrEqual(32);
    expect(emitted.flatMap((e) => e.ids).sort()).toEqual(Array.from({ length: 41 }, (_, n) => `100-${n}`).sort());
  });
});
