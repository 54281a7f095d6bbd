import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Connection, type ConnectionSocket } from '../../src/broadcaster/connection.js';
import { FanOut } from '../../src/broadcaster/fan-out.js';
import { parseStreamFilter } from '../../src/broadcaster/filter.js';
import type { OutFrame, StreamItem } from '../../src/broadcaster/frames.js';

/** A socket that records when each batch frame reached it (fake clock) and which events it held. */
class Sock implements ConnectionSocket {
  frames: { at: number; ids: (number | null)[] }[] = [];
  bufferedAmount = 0;
  isOpen = () => true;
  send = (f: OutFrame) => void (f.kind === 'batch' && this.frames.push({ at: Date.now(), ids: f.items.map((i) => i.eventId) }));
  terminate = () => undefined;
}

let n = 0;
const item = (tag: string): StreamItem => {
  n++;
  return {
    id: `7-${n}`,
    type: 'news.approved',
    json: `{"id":${n}}`,
    staffOnly: false,
    sponsored: false,
    eventId: n,
    attrs: { tags: [tag], token_addresses: [], token_symbols: [] },
  };
};

function client(fan: FanOut, tag: string): Sock {
  const parsed = parseStreamFilter(new URLSearchParams(`tag=${tag}`));
  if (!parsed.ok) throw new Error('bad filter');
  const s = new Sock();
  fan.join(new Connection(s, { queueMax: 100, sendBufferLimit: 1e9 }, { staff: false, mode: 'live', filter: parsed.filter }));
  return s;
}

let fan: FanOut;
let t0: number;
beforeEach(() => {
  vi.useFakeTimers();
  t0 = Date.now();
  fan = new FanOut({ batchMs: 200, batchMax: 10, flushSlackMs: 20 });
});
afterEach(() => {
  fan.close();
  vi.useRealTimers();
});

describe('FanOut: batches of different groups share a wake-up', () => {
  it('flushes, with a batch whose timer fires, the batches of other groups due within the slack', () => {
    const [defi, nft, l2] = [client(fan, 'defi'), client(fan, 'nft'), client(fan, 'l2')];
    fan.push([item('defi')]);
    vi.advanceTimersByTime(15);
    fan.push([item('nft')]); // due at 215: within 20 ms of defi's 200
    vi.advanceTimersByTime(15);
    fan.push([item('l2')]); // due at 230: not within the slack
    // Events at 30 ms do not flush anything due at 200 or later.
    expect([defi, nft, l2].map((s) => s.frames.length)).toEqual([0, 0, 0]);
    vi.advanceTimersByTime(170); // t = 200: defi's timer
    expect(defi.frames.map((f) => f.at - t0)).toEqual([200]);
    expect(nft.frames.map((f) => f.at - t0)).toEqual([200]);
    expect(l2.frames).toHaveLength(0);
    vi.advanceTimersByTime(29);
    expect(l2.frames).toHaveLength(0); // never more than the slack early, and its own timer still runs
    vi.advanceTimersByTime(1);
    expect(l2.frames.map((f) => f.at - t0)).toEqual([230]);
    // nft's own timer was cleared by the early flush: nothing goes out twice.
    vi.advanceTimersByTime(1000);
    expect([defi, nft, l2].map((s) => s.frames.length)).toEqual([1, 1, 1]);
  });

  it('flushes due batches when events are read, without waiting for their timers', () => {
    const [defi, nft] = [client(fan, 'defi'), client(fan, 'nft')];
    fan.push([item('defi')]);
    vi.advanceTimersByTime(185);
    // A read at 185 ms (the process is awake anyway): defi's batch, due at 200, goes out now with
    // the new defi event; nft's batch has just started and waits for its own window.
    fan.push([item('defi'), item('nft')]);
    expect(defi.frames).toEqual([{ at: t0 + 185, ids: [n - 2, n - 1] }]);
    expect(nft.frames).toHaveLength(0);
    vi.advanceTimersByTime(199);
    expect(nft.frames).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(nft.frames).toEqual([{ at: t0 + 385, ids: [n] }]);
  });

  it('with no slack, each batch goes out exactly batchMs after its first event', () => {
    fan.close();
    fan = new FanOut({ batchMs: 200, batchMax: 10, flushSlackMs: 0 });
    const [defi, nft] = [client(fan, 'defi'), client(fan, 'nft')];
    fan.push([item('defi')]);
    vi.advanceTimersByTime(5);
    fan.push([item('nft')]);
    vi.advanceTimersByTime(195);
    expect(defi.frames.map((f) => f.at - t0)).toEqual([200]);
    expect(nft.frames).toHaveLength(0);
    vi.advanceTimersByTime(5);
    expect(nft.frames.map((f) => f.at - t0)).toEqual([205]);
  });
});
