import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcasterHarness, connectOpen, makeEvent, sleep, waitUntil } from '../support/broadcaster-harness.js';
import { quietFor } from '../support/wait.js';

let h: BroadcasterHarness;

beforeAll(async () => {
  h = await BroadcasterHarness.create();
});
afterAll(() => h.close());

const approved = (from: number, n: number) => Array.from({ length: n }, (_, i) => makeEvent('news.approved', from + i));

/** Publish all events in one round trip, so they reach the broadcaster together. */
async function publishBurst(events: ReturnType<typeof approved>) {
  const p = h.redis.pipeline();
  for (const e of events) p.xadd(h.streamKey, '*', 'e', JSON.stringify(e));
  const res = await p.exec();
  return res!.map(([, id]) => id as string);
}

describe('frames', () => {
  it('sends a batch as soon as 10 events are queued', async () => {
    const srv = await h.start({ batchMs: 3000 });
    const c = await connectOpen(srv.url);
    const t0 = Date.now();
    const ids = await publishBurst(approved(1, 25));
    await c.waitFor(() => c.batches().length >= 2, 'two full batches', 2000);
    const [b1, b2] = c.batches();
    expect(b1.data.events.map((e: { id: number }) => e.id)).toEqual(Array.from({ length: 10 }, (_, i) => 1 + i));
    expect(b2.data.events.map((e: { id: number }) => e.id)).toEqual(Array.from({ length: 10 }, (_, i) => 11 + i));
    expect(b2.at - t0).toBeLessThan(1500);
    // The last 5 wait for the window. Check window (shorter than batchMs): no third frame yet.
    await quietFor(200);
    expect(c.batches()).toHaveLength(2);
    expect(b1.data.cursor).toBe(ids[9]);
    expect(b2.data.cursor).toBe(ids[19]);
    expect(Number.isInteger(b1.data.t)).toBe(true);
    expect(Math.abs(b1.data.t - Date.now() / 1000)).toBeLessThan(5);
    await srv.close();
  });

  it('flushes a partial batch about 200 ms after its first event', async () => {
    const srv = await h.start();
    const c = await connectOpen(srv.url);
    const t0 = Date.now();
    await publishBurst(approved(100, 3));
    await c.waitFor(() => c.batches().length >= 1, 'a batch', 2000);
    const waited = c.batches()[0].at - t0;
    expect(c.batches()[0].data.events).toHaveLength(3);
    expect(waited).toBeGreaterThanOrEqual(180);
    expect(waited).toBeLessThan(1000);
    // Later events open a new window.
    const t1 = Date.now();
    await h.publish(makeEvent('news.tsunami', 103));
    await c.waitFor(() => c.batches().length >= 2, 'a second batch', 2000);
    expect(c.batches()[1].at - t1).toBeGreaterThanOrEqual(180);
    await srv.close();
  });

  it('sends a sponsored event at once, in its own frame, ahead of the pending batch', async () => {
    const srv = await h.start({ batchMs: 1000 });
    const c = await connectOpen(srv.url);
    const [a, b] = await publishBurst(approved(200, 2));
    await waitUntil(() => srv.b.stats().reader.entries >= 2, 'the reader to read the burst');
    const t0 = Date.now();
    const s = await h.publish(makeEvent('news.sponsored', 202));
    await c.waitFor(() => c.batches().length >= 1, 'the sponsored frame', 1000);
    const first = c.batches()[0];
    expect(first.at - t0).toBeLessThan(500);
    expect(first.data.events.map((e: { id: number }) => e.id)).toEqual([202]);
    expect(first.data.events[0].sponsored).toEqual({ tier: 'express', ad_status: 'sponsored_approved', is_paid: true });
    await c.waitFor(() => c.batches().length >= 2, 'the batch', 3000);
    expect(c.batches()[1].at - first.at).toBeGreaterThan(300);
    expect(c.batches()[1].data.events.map((e: { id: number }) => e.id)).toEqual([200, 201]);
    // The sponsored frame's cursor says "everything before the pending batch, plus this one".
    expect(first.data.cursor.split('_')[1]).toBe(s);
    expect(first.data.cursor.split('_')[0] < a).toBe(true);
    expect(c.batches()[1].data.cursor).toBe(s);
    expect(b < s).toBe(true);
    // With nothing pending a sponsored frame's cursor is its own id.
    const s2 = await h.publish(makeEvent('news.sponsored', 203));
    await c.waitFor(() => c.batches().length >= 3, 'a second sponsored frame', 1000);
    expect(c.batches()[2].data.cursor).toBe(s2);
    await srv.close();
  });

  it('keeps stream order across batches', async () => {
    const srv = await h.start({ batchMs: 20 });
    const c = await connectOpen(srv.url);
    for (let i = 0; i < 60; i++) await h.publish(makeEvent(i % 7 === 0 ? 'news.tsunami' : 'news.approved', 300 + i));
    const got = await c.waitForEvents(60);
    expect(got.map((e) => e.id)).toEqual(Array.from({ length: 60 }, (_, i) => 300 + i));
    await srv.close();
  });
});

describe('heartbeat', () => {
  it('sends {type: heartbeat} at the configured interval', async () => {
    const srv = await h.start({ heartbeatMs: 100 });
    const c = await connectOpen(srv.url);
    await c.waitFor(() => c.controls('heartbeat').length >= 4, 'four heartbeats', 2000);
    const at = c.controls('heartbeat').map((f) => f.at);
    const gaps = at.slice(1).map((t, i) => t - at[i]);
    for (const g of gaps) expect(g).toBeGreaterThan(50);
    expect(gaps.reduce((x, y) => x + y, 0) / gaps.length).toBeLessThan(250);
    expect(c.controls('heartbeat')[0].data).toEqual({ type: 'heartbeat' });
    await srv.close();
  });

  it('drops a client that stops answering pings', async () => {
    const srv = await h.start({ heartbeatMs: 100 });
    const silent = await connectOpen(srv.url, { autoPong: false });
    const healthy = await connectOpen(srv.url);
    const closed = await Promise.race([silent.closed, sleep(2000).then(() => null)]);
    expect(closed?.code).toBe(1006);
    expect(healthy.ws.readyState).toBe(healthy.ws.OPEN);
    await healthy.waitFor(() => srv.b.connections() === 1, 'the server to forget the silent client');
    await srv.close();
  });
});

describe('scale-out', () => {
  it('delivers every event to the clients of every ws process on the same stream', async () => {
    const one = await h.start({ batchMs: 20 });
    const two = await h.start({ batchMs: 20 });
    const c1 = await connectOpen(one.url);
    const c2 = await connectOpen(two.url);
    const events = [...approved(400, 15), makeEvent('news.sponsored', 415), ...approved(416, 4)];
    await h.publishMany(events);
    for (const c of [c1, c2]) {
      const got = await c.waitForEvents(events.length);
      expect([...got].sort((a, b) => a.id - b.id).map((e) => e.id)).toEqual(events.map((e) => e.id));
    }
    await one.close();
    await two.close();
  });
});
