import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Connection, type ConnectionSocket } from '../../src/stream/connection.js';
import { FanOut } from '../../src/stream/fan-out.js';
import { parseStreamFilter } from '../../src/stream/rules/filter.js';
import type { OutFrame, StreamItem } from '../../src/stream/rules/frames.js';

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

describe('FanOut: which groups an event is offered to (the group index)', () => {
  /** A socket that keeps every batch frame's events and cursor. */
  class Recorder implements ConnectionSocket {
    got: number[] = [];
    /** Cursors of frames that are not sponsored events sent ahead of a pending batch (those point before the batch). */
    cursors: string[] = [];
    bufferedAmount = 0;
    isOpen = () => true;
    send = (f: OutFrame) => {
      if (f.kind !== 'batch') return;
      for (const i of f.items) this.got.push(i.eventId!);
      if (f.cursor.also.length > 0) return;
      this.cursors.push(f.cursor.upTo);
    };
    terminate = () => undefined;
  }

  const SYMBOLS = ['BTC', 'ETH', 'SOL', 'ARB'];
  const TAGS = ['defi', 'nft', 'l2'];
  const ADDRS = ['0x' + '1'.repeat(40), '0x' + '2'.repeat(40)];
  const TYPES = ['news.approved', 'news.killed', 'news.sponsored', 'news.submitted', 'news.tsunami'] as const;

  /** A small deterministic generator (the failing seed is in the test name). */
  function rng(seed: number) {
    let x = seed;
    return () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  }

  it.each([1, 2, 3, 4, 5])('gives every connection exactly the events its visibility and filter allow, with cursors past the rest (seed %i)', (seed) => {
    const r = rng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
    const some = <T>(xs: readonly T[]) => xs.filter(() => r() < 0.35);
    const queries: string[] = [];
    for (let i = 0; i < 40; i++) {
      const parts: string[] = [];
      if (r() < 0.3) parts.push(`types=${some(TYPES).join(',') || pick(TYPES)}`);
      if (r() < 0.3) parts.push(`token_address=${pick(ADDRS)}`);
      if (r() < 0.5) parts.push(`token_symbol=${(some(SYMBOLS).join(',') || pick(SYMBOLS)).toLowerCase()}`);
      if (r() < 0.5) parts.push(`tag=${some(TAGS).join(',') || pick(TAGS)}`);
      queries.push(parts.join('&'));
    }
    const conns = queries.map((q, i) => {
      const parsed = parseStreamFilter(new URLSearchParams(q));
      if (!parsed.ok) throw new Error(`bad filter ${q}`);
      const sock = new Recorder();
      const conn = new Connection(sock, { queueMax: 10_000, sendBufferLimit: 1e9 }, { staff: i % 3 === 0, mode: 'live', filter: parsed.filter });
      fan.join(conn);
      return { conn, sock, q };
    });
    // One group goes away half-way: it must receive nothing after that, the others are unaffected.
    const leaver = conns[7];
    const items: StreamItem[] = [];
    for (let k = 0; k < 400; k++) {
      n++;
      const type = pick(TYPES);
      const attrs = type === 'news.tsunami' ? null : { token_addresses: some(ADDRS), token_symbols: some(SYMBOLS), tags: some(TAGS) };
      items.push({ id: `9-${n}`, type, json: `{"id":${n}}`, staffOnly: type === 'news.submitted', sponsored: type === 'news.sponsored', eventId: n, attrs });
    }
    for (let k = 0; k < items.length; k += 25) {
      if (k === 200) fan.leave(leaver.conn);
      fan.push(items.slice(k, k + 25));
      vi.advanceTimersByTime(30);
    }
    vi.advanceTimersByTime(1000);
    const ascending = (xs: number[]) => [...xs].sort((a, b) => a - b);
    for (const { conn, sock } of conns) {
      const want = items.filter((i) => conn.wants(i)).map((i) => i.eventId!);
      if (conn === leaver.conn) {
        // Gone half-way: it got only events it wants from before it left, each once (its open batch
        // went with it, sponsored events sent ahead of that batch did not).
        const before = new Set(want.filter((id) => id <= items[199].eventId!));
        expect(sock.got.filter((id) => !before.has(id))).toEqual([]);
        expect(new Set(sock.got).size).toBe(sock.got.length);
        if (before.size >= 10) expect(sock.got.length).toBeGreaterThan(0);
        continue;
      }
      // Each wanted event once (sponsored ones go out ahead of the pending batch, hence the sort).
      expect(ascending(sock.got)).toEqual(want);
      // A batch frame's cursor is the id of an event read (its own last one, or one it left out after it).
      const ids = new Set(items.map((i) => i.id));
      for (const c of sock.cursors) expect(ids.has(c)).toBe(true);
    }
    // Cursors move past events a filter left out: some frames' cursors are events their connection does not want.
    const byId = new Map(items.map((i) => [i.id, i]));
    expect(conns.some(({ conn, sock }) => sock.cursors.some((c) => !conn.wants(byId.get(c)!)))).toBe(true);
  });
});
