import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Connection, type ConnectionSocket } from '../../src/stream/connection.js';
import { batchFrame, reconcileFrame, type OutFrame, type StreamItem } from '../../src/stream/rules/frames.js';

class FakeSocket implements ConnectionSocket {
  bufferedAmount = 0;
  open = true;
  sent: any[] = [];
  pings = 0;
  terminated = false;
  isOpen() {
    return this.open;
  }
  send(frame: OutFrame) {
    this.sent.push(JSON.parse(String(frame.data)));
  }
  ping() {
    this.pings++;
  }
  terminate() {
    this.terminated = true;
    this.open = false;
  }
}

const item = (n: number, staffOnly = false): StreamItem => ({
  id: `1-${n}`,
  type: staffOnly ? 'news.submitted' : 'news.approved',
  json: JSON.stringify({ id: n }),
  staffOnly,
  sponsored: false,
  eventId: null,
  attrs: null,
});
const frame = (...ns: (number | [number, 'staff'])[]) => {
  const items = ns.map((n) => (Array.isArray(n) ? item(n[0], true) : item(n)));
  return batchFrame(items, { upTo: items[items.length - 1].id, also: [] }, 1);
};
const eventIds = (s: FakeSocket) => s.sent.filter((f) => f.events).flatMap((f) => f.events.map((e: { id: number }) => e.id));

let socket: FakeSocket;
beforeEach(() => {
  vi.useFakeTimers();
  socket = new FakeSocket();
});
afterEach(() => vi.useRealTimers());

describe('Connection queue', () => {
  it('writes straight through while the socket keeps up', () => {
    const c = new Connection(socket, { queueMax: 5, sendBufferLimit: 100 }, { staff: false, mode: 'live' });
    c.deliver(frame(1, 2));
    c.deliver(frame(3));
    expect(eventIds(socket)).toEqual([1, 2, 3]);
    expect(socket.sent[0].cursor).toBe('1-2');
  });

  it('holds frames while the socket is congested and drains them in order', () => {
    const c = new Connection(socket, { queueMax: 10, sendBufferLimit: 100 }, { staff: false, mode: 'live' });
    socket.bufferedAmount = 500;
    c.deliver(frame(1, 2));
    c.deliver(frame(3));
    expect(socket.sent).toHaveLength(0);
    expect(c.queued()).toBe(3);
    socket.bufferedAmount = 0;
    vi.advanceTimersByTime(20);
    expect(eventIds(socket)).toEqual([1, 2, 3]);
    expect(c.queued()).toBe(0);
  });

  it('drops the queue and sends reconcile/backlog when it overflows, then goes on live', () => {
    const c = new Connection(socket, { queueMax: 4, sendBufferLimit: 100 }, { staff: false, mode: 'live' });
    socket.bufferedAmount = 500;
    c.deliver(frame(1, 2));
    c.deliver(frame(3, 4));
    expect(socket.sent).toHaveLength(0);
    c.deliver(frame(5));
    expect(socket.sent).toEqual([{ type: 'reconcile', reason: 'backlog' }]);
    expect(c.queued()).toBe(0);
    expect(c.counters.backlogs).toBe(1);
    socket.bufferedAmount = 0;
    c.deliver(frame(6));
    expect(eventIds(socket)).toEqual([6]);
  });

  it('buffers live frames during catch-up and releases them without what the history covered', () => {
    const c = new Connection(socket, { queueMax: 100, sendBufferLimit: 100 }, { staff: false, mode: 'catching_up' });
    c.deliver(frame(3, 4));
    c.deliver(frame(5, 6));
    expect(c.writeHistory(frame(1, 2, 3, 4, 5))).toBe(true);
    c.finishCatchUp('1-5');
    expect(eventIds(socket)).toEqual([1, 2, 3, 4, 5, 6]);
    // The released frame says the client holds everything up to 6.
    expect(socket.sent.at(-1).cursor).toBe('1-6');
    c.deliver(frame(7));
    expect(eventIds(socket)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('keeps skipping events the history covered until the live stream catches up', () => {
    const c = new Connection(socket, { queueMax: 100, sendBufferLimit: 100 }, { staff: false, mode: 'catching_up' });
    c.writeHistory(frame(1, 2, 3, 4));
    c.finishCatchUp('1-4');
    c.deliver(frame(2, 3)); // the live reader lags behind the history read
    c.deliver(frame(4, 5));
    c.deliver(frame(6));
    expect(eventIds(socket)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('sends reconcile/resubscribed when the history did not reach back', () => {
    const c = new Connection(socket, { queueMax: 100, sendBufferLimit: 100 }, { staff: false, mode: 'catching_up' });
    c.deliver(frame(8));
    c.finishCatchUp(null, 'resubscribed');
    expect(socket.sent[0]).toEqual({ type: 'reconcile', reason: 'resubscribed' });
    expect(eventIds(socket)).toEqual([8]);
  });

  it('gives up a catch-up whose buffer overflows', () => {
    const c = new Connection(socket, { queueMax: 2, sendBufferLimit: 100 }, { staff: false, mode: 'catching_up' });
    let told = false;
    c.onBacklog = () => (told = true);
    c.deliver(frame(1, 2, 3));
    expect(told).toBe(true);
    expect(c.mode).toBe('live');
    expect(c.writeHistory(frame(0))).toBe(false);
    expect(socket.sent).toEqual([{ type: 'reconcile', reason: 'backlog' }]);
  });

  it('stops sending staff-only events, queued ones included, after a downgrade', () => {
    const c = new Connection(socket, { queueMax: 100, sendBufferLimit: 100 }, { staff: true, mode: 'live' });
    c.deliver(frame([1, 'staff'], 2));
    socket.bufferedAmount = 500;
    c.deliver(frame([3, 'staff'], 4));
    c.downgrade();
    socket.bufferedAmount = 0;
    vi.advanceTimersByTime(20);
    c.deliver(frame([5, 'staff'], 6));
    expect(eventIds(socket)).toEqual([1, 2, 4, 6]);
  });

  it('applies a skip mark at its place in the order', () => {
    const c = new Connection(socket, { queueMax: 100, sendBufferLimit: 100 }, { staff: false, mode: 'catching_up' });
    c.deliver(frame(3));
    c.deliver({ kind: 'skip', through: '1-4' });
    c.deliver(frame(4, 5));
    c.finishCatchUp('1-2');
    expect(eventIds(socket)).toEqual([3, 5]);
  });

  it('pings on heartbeat and terminates a socket that never answered', () => {
    const c = new Connection(socket, { queueMax: 100, sendBufferLimit: 100 }, { staff: false, mode: 'live' });
    expect(c.heartbeat()).toBe('alive');
    expect(socket.sent).toEqual([{ type: 'heartbeat' }]);
    c.pong();
    expect(c.heartbeat()).toBe('alive');
    expect(c.heartbeat()).toBe('dead');
    expect(socket.terminated).toBe(true);
    expect(socket.pings).toBe(2);
  });

  it('passes control frames through in order', () => {
    const c = new Connection(socket, { queueMax: 100, sendBufferLimit: 100 }, { staff: false, mode: 'live' });
    socket.bufferedAmount = 500;
    c.deliver(frame(1));
    c.deliver(reconcileFrame('resubscribed'));
    c.deliver(frame(2));
    socket.bufferedAmount = 0;
    vi.advanceTimersByTime(20);
    expect(socket.sent.map((f) => f.type ?? f.events[0].id)).toEqual([1, 'reconcile', 2]);
  });
});
