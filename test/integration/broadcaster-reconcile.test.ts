import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBroadcaster } from '../../src/stream/server.js';
import { EventPublisher } from '../../src/platform/events/events.js';
import { createLogger } from '../../src/platform/logger.js';
import { createRedis, type Redis } from '../../src/platform/redis.js';
import { freePort, startRedis } from '../../scripts/lib/services.js';
import { BroadcasterHarness, connectOpen, makeEvent, ORIGIN, sleep, waitUntil } from '../support/broadcaster-harness.js';
import { quietFor, waitFor } from '../support/wait.js';

let h: BroadcasterHarness;

beforeAll(async () => {
  h = await BroadcasterHarness.create();
});
afterAll(() => h.close());

const ids = (events: { id: number }[]) => events.map((e) => e.id);
/** Each frame the client got, in order: `type:reason` for a control frame, the batch's ids otherwise. */
const frameKinds = (c: { frames: { data: { type?: string; reason?: string; events: { id: number }[] } }[] }) =>
  c.frames.map((f) => (f.data.type ? `${f.data.type}:${f.data.reason}` : ids(f.data.events).join(',')));

/**
 * In one transaction: adds the events `trimmed` and trims the stream to nothing (no reader can see
 * them), then adds the events `after`.
 */
async function addTrimmed(trimmed: number[], after: number[] = []): Promise<void> {
  const m = h.redis.multi();
  for (const id of trimmed) m.xadd(h.streamKey, '*', 'e', JSON.stringify(makeEvent('news.approved', id)));
  m.xtrim(h.streamKey, 'MAXLEN', 0);
  for (const id of after) m.xadd(h.streamKey, '*', 'e', JSON.stringify(makeEvent('news.approved', id)));
  await m.exec();
}

/** A broadcaster with these options and one open client that has received event `id`. */
async function clientWithEvent(id: number, opts: Parameters<BroadcasterHarness['start']>[0]) {
  const srv = await h.start(opts);
  const c = await connectOpen(srv.url);
  await h.publish(makeEvent('news.approved', id));
  await c.waitForEvents(1);
  return { srv, c };
}

/** The Redis client id of a broadcaster's stream reader. */
async function readerClientId(redis: Redis, name: string): Promise<string> {
  const list = (await redis.client('LIST')) as string;
  const line = list.split('\n').find((l) => l.includes(` name=${name} `));
  if (!line) throw new Error(`no client named ${name}`);
  return /(?:^|\s)id=(\d+)/.exec(line)![1];
}

describe('backlog', () => {
  it("drops a slow client's queue and tells it to reconcile, while others get everything", async () => {
    const srv = await h.start({ batchMs: 5, queueMax: 50, sendBufferLimit: 16 * 1024 });
    const slow = await connectOpen(srv.url);
    const fast = await connectOpen(srv.url);
    slow.ws.pause();
    const sent = await h.floodUntilBacklog(srv.b, 'the slow client to overflow');
    expect(srv.b.stats().backlogs).toBeGreaterThan(0);
    await fast.waitForEvents(sent, 20_000);
    expect(fast.controls('reconcile')).toHaveLength(0);

    slow.ws.resume();
    await slow.waitFor(() => slow.controls('reconcile').length > 0, 'a reconcile frame', 10_000);
    expect(slow.controls('reconcile')[0].data).toEqual({ type: 'reconcile', reason: 'backlog' });
    // Fewer events than were published reached it, in order, and it is live again afterwards.
    const before = slow.events();
    expect(before.length).toBeLessThan(sent);
    expect(ids(before)).toEqual([...ids(before)].sort((a, b) => a - b));
    // Pacing, not a wait for a condition: the live event goes out well after the reconcile, so what
    // arrives is the client being live again, not the tail of its backlog.
    await sleep(300);
    await h.publish(makeEvent('news.approved', 999_999));
    await slow.waitFor(() => slow.events().some((e) => e.id === 999_999), 'a live event after the reconcile', 10_000);
    await srv.close();
  });
});

describe('resubscribed', () => {
  it('reconciles when events were trimmed from the stream before the reader saw them', async () => {
    const { srv, c } = await clientWithEvent(1, { batchMs: 20 });
    // One transaction: an event is added and trimmed away before any reader can see it.
    await addTrimmed([2]);
    await h.publish(makeEvent('news.approved', 3));
    await c.waitForEvents(2);
    // Check window: no second reconcile, no trimmed event.
    await quietFor(300);
    expect(ids(c.events())).toEqual([1, 3]);
    expect(frameKinds(c)).toEqual(['1', 'reconcile:resubscribed', '3']);
    await srv.close();
  });

  it('reconciles when events are trimmed while events flow (the read after a pause), and delivers what follows', async () => {
    // A long pause after each read that returned events: the trim happens inside it, so the next
    // read is the non-blocking one that checks the last-read entry and reads on in one command.
    const { srv, c } = await clientWithEvent(20, { batchMs: 20, readLingerMs: 400 });
    await addTrimmed([21], [22]);
    await c.waitForEvents(2, 3000);
    expect(srv.b.stats().reader.rangeReads).toBeGreaterThan(0);
    await h.publish(makeEvent('news.approved', 23));
    await c.waitForEvents(3, 3000);
    await quietFor(500);
    expect(ids(c.events())).toEqual([20, 22, 23]);
    expect(frameKinds(c)).toEqual(['20', 'reconcile:resubscribed', '22', '23']);
    await srv.close();
  });

  it('reads on without a reconcile while events flow and nothing is trimmed', async () => {
    const srv = await h.start({ batchMs: 20, readLingerMs: 200 });
    const c = await connectOpen(srv.url);
    for (let i = 0; i < 6; i++) {
      await h.publishMany([makeEvent('news.approved', 30 + 2 * i), makeEvent('news.approved', 31 + 2 * i)]);
      // The next pair goes out once this one is delivered: inside the read's pause, while events flow.
      await c.waitForEvents(2 * (i + 1), 3000);
    }
    await c.waitForEvents(12, 3000);
    await quietFor(300);
    expect(ids(c.events())).toEqual(Array.from({ length: 12 }, (_, i) => 30 + i));
    expect(c.controls('reconcile')).toHaveLength(0);
    // Reads made while events flowed (the non-blocking XRANGE) found the later pairs.
    expect(srv.b.stats().reader.rangeReads).toBeGreaterThan(0);
    await srv.close();
  });

  it('reconciles once when the stream is trimmed past the reader while nothing new arrives', async () => {
    const { srv, c } = await clientWithEvent(10, { batchMs: 20, readBlockMs: 200 });
    await addTrimmed([11]);
    await c.waitFor(() => c.controls('reconcile').length > 0, 'a reconcile frame', 3000);
    // Check window of three empty 200 ms reads: the reader does not reconcile again while nothing arrives.
    await quietFor(600);
    await h.publish(makeEvent('news.approved', 12));
    await c.waitForEvents(2);
    expect(ids(c.events())).toEqual([10, 12]);
    expect(c.controls('reconcile')).toHaveLength(1);
    await srv.close();
  });

  it("loses nothing and sends no reconcile when the reader's Redis connection is cut", async () => {
    const { srv, c } = await clientWithEvent(20, { batchMs: 20 });
    const killed = await h.redis.client('KILL', 'ID', await readerClientId(h.redis, srv.b.stats().reader.clientName));
    expect(killed).toBe(1);
    // Published while the reader reconnects.
    for (let i = 21; i < 30; i++) await h.publish(makeEvent('news.approved', i));
    await c.waitForEvents(10, 10_000);
    // Check window: no duplicate from the re-sent read, no reconcile.
    await quietFor(200);
    expect(ids(c.events())).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i));
    expect(c.controls('reconcile')).toHaveLength(0);
    await srv.close();
  });
});

describe('Redis restart', () => {
  const log = createLogger('test-ws', 'silent');

  async function withOwnRedis(persistent: boolean) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'squid-ws-redis-'));
    const port = await freePort();
    let redis = await startRedis({ port, dir, persistent, log: () => undefined });
    const url = redis.url;
    const b = createBroadcaster({ redisUrl: url, streamKey: 'events', trustedOrigin: ORIGIN, log, batchMs: 20, readBlockMs: 300 });
    await b.ready;
    await new Promise<void>((r) => b.server.listen(0, '127.0.0.1', r));
    const wsUrl = `ws://127.0.0.1:${(b.server.address() as { port: number }).port}`;
    const cmd = createRedis(url, 'command', 'test-publisher');
    const pub = new EventPublisher(cmd, 'events', 1000);
    // Published once Redis takes it (it may be restarting).
    const publish = async (id: number) =>
      (await waitFor(async () => ({ streamId: await pub.publish(makeEvent('news.approved', id)) }), { timeout: 10_000, interval: 50, what: `event ${id} published` })).streamId;
    return {
      b,
      wsUrl,
      publish,
      async restart() {
        await redis.stop();
        redis = await startRedis({ port, dir, persistent, log: () => undefined });
      },
      async close() {
        await b.close();
        cmd.disconnect();
        await redis.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }

  it('reconciles after a restart that lost the stream', async () => {
    const r = await withOwnRedis(false);
    try {
      const c = await connectOpen(r.wsUrl);
      await r.publish(1);
      await c.waitForEvents(1);
      await r.restart();
      await r.publish(2);
      await c.waitForEvents(2, 10_000);
      // Check window: nothing else follows.
      await quietFor(200);
      expect(frameKinds(c).filter((k) => !k.startsWith('heartbeat:'))).toEqual(['1', 'reconcile:resubscribed', '2']);
    } finally {
      await r.close();
    }
  });

  it('continues without loss or reconcile after a restart that kept the stream', async () => {
    const r = await withOwnRedis(true);
    try {
      const c = await connectOpen(r.wsUrl);
      await r.publish(1);
      await c.waitForEvents(1);
      await r.restart();
      await r.publish(2);
      await r.publish(3);
      await c.waitForEvents(3, 10_000);
      // Check window: no duplicate, no reconcile.
      await quietFor(200);
      expect(ids(c.events())).toEqual([1, 2, 3]);
      expect(c.controls('reconcile')).toHaveLength(0);
      await waitUntil(() => r.b.stats().reader.losses === 0, 'no loss');
    } finally {
      await r.close();
    }
  });
});
