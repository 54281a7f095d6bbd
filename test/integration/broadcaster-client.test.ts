import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { fetchNewsFeed, NewsStream, type StreamState } from '../../src/stream/client.js';
import type { NewsEvent } from '../../src/platform/events/events.js';
import { BroadcasterHarness, makeEvent, ORIGIN, waitUntil } from '../support/broadcaster-harness.js';
import { quietFor } from '../support/wait.js';

let h: BroadcasterHarness;

beforeAll(async () => {
  h = await BroadcasterHarness.create();
});
afterAll(() => h.close());

function collect(url: string, extra: Partial<ConstructorParameters<typeof NewsStream>[0]> = {}) {
  const events: NewsEvent[] = [];
  const repolls: string[] = [];
  const states: { state: StreamState; code?: number }[] = [];
  const stream = new NewsStream({
    url,
    origin: ORIGIN,
    baseDelayMs: 20,
    maxDelayMs: 200,
    onEvents: (e) => events.push(...e),
    repoll: (reason) => void repolls.push(reason),
    onState: (state, d) => states.push({ state, code: d?.code }),
    ...extra,
  });
  return { stream, events, repolls, states };
}

describe('reference client', () => {
  it('reconnects after 1001 and resumes with its cursor: nothing missed, nothing twice', async () => {
    const first = await h.start({ batchMs: 20 });
    const port = first.port;
    const c = collect(`${first.url}/ws/news/`);
    c.stream.start();
    await waitUntil(() => first.b.connections() === 1, 'the client to connect');
    await h.publishMany([1, 2, 3].map((i) => makeEvent('news.approved', i)));
    await waitUntil(() => c.events.length === 3, 'three events');
    await first.close();
    expect(c.states.some((s) => s.state === 'waiting' && s.code === 1001)).toBe(true);
    await h.publishMany([4, 5].map((i) => makeEvent('news.approved', i)));
    const second = await h.start({ batchMs: 20 }, port);
    await waitUntil(() => c.events.length === 5, 'the missed events', 5000);
    await h.publish(makeEvent('news.approved', 6));
    await waitUntil(() => c.events.length === 6, 'a live event');
    // Check window: no event arrives twice (a replay after the resume would).
    await quietFor(100);
    expect(c.events.map((e) => e.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(c.repolls).toEqual([]);
    expect(second.b.stats().resumes.resumed).toBe(1);
    await c.stream.stop();
    await second.close();
  });

  it('re-polls on reconcile', async () => {
    const first = await h.start({ batchMs: 20 });
    const port = first.port;
    const c = collect(`${first.url}/ws/news/`);
    c.stream.start();
    await waitUntil(() => first.b.connections() === 1, 'the client to connect');
    await h.publish(makeEvent('news.approved', 10));
    await waitUntil(() => c.events.length === 1, 'an event');
    await first.close();
    await h.publishMany([11, 12].map((i) => makeEvent('news.approved', i)));
    await h.redis.xtrim(h.streamKey, 'MAXLEN', 0);
    const second = await h.start({ batchMs: 20 }, port);
    await waitUntil(() => c.repolls.length === 1, 'a re-poll');
    expect(c.repolls).toEqual(['resubscribed']);
    await c.stream.stop();
    await second.close();
  });

  it('backs off on 4003 and gets in once a slot is free', async () => {
    const srv = await h.start({ maxConnections: 1 });
    const a = collect(`${srv.url}/ws/news/`);
    a.stream.start();
    await waitUntil(() => srv.b.connections() === 1, 'the first client');
    const b = collect(`${srv.url}/ws/news/`, { baseDelayMs: 10 });
    b.stream.start();
    await waitUntil(() => b.states.some((s) => s.code === 4003), 'a 4003 close');
    await a.stream.stop();
    await waitUntil(() => b.states.filter((s) => s.state === 'open').length >= 1 && srv.b.connections() === 1, 'the second client to get in', 10_000);
    await h.publish(makeEvent('news.approved', 20));
    await waitUntil(() => b.events.length === 1, 'an event');
    await b.stream.stop();
    await srv.close();
  });

  it('treats a stream without frames as dead and reconnects', async () => {
    // A server that accepts and then says nothing, not even heartbeats.
    const server = http.createServer();
    const wss = new WebSocketServer({ server });
    let connections = 0;
    wss.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/news/`;
    const c = collect(url, { deadAfterMs: 150 });
    c.stream.start();
    await waitUntil(() => connections >= 3, 'reconnects after silence', 5000);
    expect(c.states.filter((s) => s.state === 'waiting').every((s) => s.code === 1006)).toBe(true);
    await c.stream.stop();
    wss.close();
    server.close();
  });

  it('re-polls after a reconnect that has no cursor to resume from', async () => {
    const first = await h.start();
    const port = first.port;
    const c = collect(`${first.url}/ws/news/`);
    c.stream.start();
    await waitUntil(() => first.b.connections() === 1, 'the client to connect');
    await first.close();
    const second = await h.start({}, port);
    await waitUntil(() => c.repolls.length === 1, 'a re-poll');
    expect(c.repolls).toEqual(['reconnected']);
    await c.stream.stop();
    await second.close();
  });

  it('keeps its filter across a reconnect, and stops for good when the server refuses the filter', async () => {
    const first = await h.start({ batchMs: 20 });
    const port = first.port;
    const c = collect(`${first.url}/ws/news/?tag=defi`);
    c.stream.start();
    await waitUntil(() => first.b.connections() === 1, 'the client to connect');
    await h.publishArticles([
      [makeEvent('news.approved', 50), { tags: ['defi'] }],
      [makeEvent('news.approved', 51), { tags: ['nft'] }],
    ]);
    await waitUntil(() => c.events.length === 1, 'the matching event');
    await first.close();
    await h.publishArticles([
      [makeEvent('news.approved', 52), { tags: ['nft'] }],
      [makeEvent('news.approved', 53), { tags: ['defi'] }],
    ]);
    const second = await h.start({ batchMs: 20 }, port);
    await waitUntil(() => c.events.length === 2, 'the missed matching event');
    // Check window: no non-matching or repeated event follows.
    await quietFor(100);
    expect(c.events.map((e) => e.id)).toEqual([50, 53]);
    await c.stream.stop();

    const stopped: string[] = [];
    const bad = collect(`${second.url}/ws/news/?tag=Not!A!Tag`, { onState: (state, d) => void (state === 'stopped' && stopped.push(`${d?.code} ${d?.reason}`)) });
    bad.stream.start();
    await waitUntil(() => stopped.length === 1, 'the client to give up');
    expect(stopped[0]).toMatch(/^400 invalid stream filter: query.tag/);
    await waitUntil(() => second.b.connections() === 0, 'the server to drop the refused connection');
    await second.close();
  });

  it('fetchNewsFeed reads GET /api/v1/news/', async () => {
    const server = http.createServer((req, res) => {
      res.writeHead(req.url === '/api/v1/news/' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: [{ id: 1 }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await fetchNewsFeed(base)).toEqual({ items: [{ id: 1 }] });
    server.close();
  });
});
