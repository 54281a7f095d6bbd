/**
 * Server-Sent Events at /sse/news/, driven by the `eventsource` npm client (a WHATWG
 * EventSource with its own reconnect and Last-Event-ID) and, where EventSource hides what matters
 * (comments, headers, a client that stops reading), by raw HTTP.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/identity/tokens.js';
import type { EventType, NewsEvent } from '../../src/platform/events/events.js';
import { BroadcasterHarness, connect, connectOpen, makeEvent, ORIGIN, sleep, waitUntil, type ArticleAttrs, type RunningBroadcaster } from '../support/broadcaster-harness.js';
import { rawSse, sseOpen, SseTestClient, sseUrl } from '../support/sse-client.js';
import { quietFor } from '../support/wait.js';

let h: BroadcasterHarness;
let srv: RunningBroadcaster;

beforeAll(async () => {
  h = await BroadcasterHarness.create();
  srv = await h.start({ batchMs: 30, maxPerIp: 100, sseRetryMs: 50 });
});
afterAll(() => h.close());

let nextEventId = 1000;
const ev = (type: EventType, id: number): NewsEvent => makeEvent(type, id, { event_id: nextEventId++ });
const ids = (events: { id: number }[]) => events.map((e) => e.id);
const staffCookie = async () => `access_token=${await signAccessToken(h.env.config.JWT_SECRET, { userId: 1, address: '0x1', roles: ['staff'] })}`;

describe('SSE stream', () => {
  it('sends one message per event: id is the event_id, data the event JSON; filters and staff rules as on the WebSocket', async () => {
    const all = await sseOpen(srv.http);
    const defi = await sseOpen(srv.http, { query: { tag: 'defi', types: 'news.approved,news.submitted' } });
    const staff = await sseOpen(srv.http, { query: { tag: 'defi' }, cookie: await staffCookie() });
    const events: [NewsEvent, ArticleAttrs | null][] = [
      [ev('news.approved', 1), { tags: ['defi'] }],
      [ev('news.submitted', 2), { tags: ['defi'] }],
      [ev('news.tsunami', 3), null],
      [ev('news.approved', 4), { tags: ['nft'] }],
      [ev('news.sponsored', 5), { tags: ['defi'] }],
    ];
    await h.publishArticles(events);
    expect(ids(await all.waitForEvents(4)).sort()).toEqual([1, 3, 4, 5]);
    expect(ids(await defi.waitForEvents(1))).toEqual([1]);
    expect(ids(await staff.waitForEvents(3)).sort()).toEqual([1, 2, 5]);
    // Check window: no stream gets more than it matches.
    await quietFor(150);
    expect(all.events()).toHaveLength(4);
    expect(defi.events()).toHaveLength(1);
    const byId = new Map(events.map(([e]) => [e.id, e]));
    for (const m of all.messages) {
      expect(m.name).toBe('message');
      expect(m.data).toEqual(byId.get(m.data.id));
      expect(m.lastEventId).toBe(String(m.data.event_id));
    }
    for (const c of [all, defi, staff]) c.close();
  });

  it('answers with the event-stream type, CORS for the trusted origin with credentials, retry advice and comment heartbeats', async () => {
    const own = await h.start({ heartbeatMs: 100, sseRetryMs: 1000 });
    const r = await rawSse(own.http);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(r.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(r.headers['access-control-allow-credentials']).toBe('true');
    expect(r.headers['cache-control']).toBe('no-store');
    await waitUntil(() => r.text().split(': hb\n\n').length > 3, 'three heartbeat comments', 2000);
    const retry = Number(/^retry: (\d+)\n\n/.exec(r.text())![1]);
    expect(retry).toBeGreaterThanOrEqual(1000);
    expect(retry).toBeLessThanOrEqual(2000);
    // A heartbeat is a comment, not a message: EventSource sees none.
    const es = await sseOpen(own.http);
    // Check window of several heartbeats: EventSource reports none as a message.
    await quietFor(350);
    expect(es.messages).toHaveLength(0);
    es.close();

    const preflight = await rawSse(own.http, { method: 'OPTIONS', headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'last-event-id' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Last-Event-ID/i);
    expect((await rawSse(own.http, { method: 'POST' })).status).toBe(405);
    r.close();
    await own.close();
  });

  it('refuses a missing or untrusted Origin with 403, and a bad filter with 400 naming the parameter', async () => {
    for (const origin of [null, 'http://evil.example', `${ORIGIN}/`]) {
      const r = await rawSse(srv.http, { origin });
      expect(r.status).toBe(403);
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
      await r.ended;
      expect(JSON.parse(r.text()).error.code).toBe('origin_not_allowed');
    }
    const refused = new SseTestClient(srv.http, { origin: 'http://evil.example' });
    await waitUntil(() => refused.es.readyState === refused.es.CLOSED, 'EventSource to give up');
    expect(refused.errors[0].code).toBe(403);

    const bad = await rawSse(srv.http, { query: { token_symbol: 'ETH', tag: 'No Spaces' } });
    expect(bad.status).toBe(400);
    await bad.ended;
    const body = JSON.parse(bad.text());
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details.fields.map((f: { path: string }) => f.path)).toEqual(['query.tag']);
    expect(bad.headers['access-control-allow-origin']).toBe(ORIGIN); // the page may read why
  });

  it('resumes after a reconnect with Last-Event-ID: the missed matching events once, then live', async () => {
    const port = srv.port;
    const own = await h.start({ batchMs: 20, sseRetryMs: 50 });
    const c = await sseOpen(own.http, { query: { token_symbol: 'btc' } });
    await h.publishArticles([
      [ev('news.approved', 10), { token_symbols: ['BTC'] }],
      [ev('news.approved', 11), { token_symbols: ['ETH'] }],
    ]);
    await c.waitForEvents(1);
    const lastId = c.messages.at(-1)!.lastEventId;
    // Shutdown ends the response; EventSource reconnects (to a new process on the same port).
    const ownPort = own.port;
    await own.close();
    await h.publishArticles([
      [ev('news.approved', 12), { token_symbols: ['BTC'] }],
      [ev('news.approved', 13), { token_symbols: ['ETH'] }],
      [ev('news.sponsored', 14), { token_symbols: ['BTC', 'ETH'] }],
    ]);
    const again = await h.start({ batchMs: 20 }, ownPort);
    await c.waitForEvents(3, 10_000);
    await h.publishArticles([[ev('news.approved', 15), { token_symbols: ['btc'] }]]);
    await c.waitForEvents(4);
    // Check window: no non-matching or repeated event follows.
    await quietFor(150);
    expect(ids(c.events())).toEqual([10, 12, 14, 15]);
    expect(c.reconciles()).toHaveLength(0);
    expect(c.requests.at(-1)!.lastEventId).toBe(lastId);
    expect(again.b.stats().resumes.resumed).toBe(1);
    expect(port).not.toBe(ownPort);
    c.close();
    await again.close();
  });

  it('resumes from the last_event_id query parameter, and reconciles when history no longer holds it', async () => {
    const live = await sseOpen(srv.http);
    await h.publishArticles([[ev('news.approved', 20), { tags: ['x'] }]]);
    const from = nextEventId - 1;
    await h.publishArticles([
      [ev('news.approved', 21), { tags: ['x'] }],
      [ev('news.approved', 22), { tags: ['y'] }],
    ]);
    // Wait until they went out live: a stream that opens while a batch is open gets that batch.
    await live.waitForEvents(3);
    const c = await sseOpen(srv.http, { query: { last_event_id: String(from), tag: 'x' } });
    expect(ids(await c.waitForEvents(1))).toEqual([21]);
    // The header wins over the query parameter (it is what EventSource sends on a reconnect).
    const h2 = await sseOpen(srv.http, { query: { last_event_id: String(from) }, lastEventId: String(from + 1) });
    expect(ids(await h2.waitForEvents(1))).toEqual([22]);

    for (const gone of ['1', 'abc', String(nextEventId + 100)]) {
      const r = await sseOpen(srv.http, { query: { last_event_id: gone } });
      await waitUntil(() => r.messages.length > 0, 'a reconcile');
      expect(r.messages[0]).toMatchObject({ name: 'reconcile', data: { type: 'reconcile', reason: 'resubscribed' } });
      await h.publishArticles([[ev('news.approved', 23), null]]);
      expect(ids(await r.waitForEvents(1))).toEqual([23]);
      r.close();
    }
    // The last frames have landed before the streams are closed (event 23 three times: unfiltered
    // streams only, c follows tag x).
    await live.waitForEvents(6);
    await h2.waitForEvents(4);
    for (const x of [c, h2, live]) x.close();
  });

  it('resumes from the oldest copy of an event the relay sent twice, so nothing between the copies is skipped', async () => {
    const e = (id: number, eventId: number) => [makeEvent('news.approved', id, { event_id: eventId }), null] as [NewsEvent, null];
    const base = nextEventId + 500;
    nextEventId = base + 10;
    // A relay crashed after its XADD: 40-42 went out, then 43 (another relay), then 40-42 again.
    await h.publishArticles([e(40, base), e(41, base + 1), e(42, base + 2), e(43, base + 3), e(40, base), e(41, base + 1), e(42, base + 2)]);
    const c = await sseOpen(srv.http, { query: { last_event_id: String(base + 1) } });
    await c.waitForEvents(5);
    // Check window: nothing beyond the five follows.
    await quietFor(100);
    expect(ids(c.events())).toEqual([42, 43, 40, 41, 42]);
    expect(c.reconciles()).toHaveLength(0);
    c.close();
  });

  it('tells a slow SSE consumer to reconcile (backlog) and goes on live', async () => {
    const own = await h.start({ batchMs: 5, queueMax: 50, sendBufferLimit: 16 * 1024 });
    const url = sseUrl(own.http);
    const sock = net.connect({ host: '127.0.0.1', port: own.port });
    await new Promise((r) => sock.once('connect', r));
    sock.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nOrigin: ${ORIGIN}\r\nAccept: text/event-stream\r\n\r\n`);
    sock.pause();
    await waitUntil(() => own.b.stats().sseConnections === 1, 'the stream');
    await h.floodUntilBacklog(own.b, 'the stream to overflow');
    expect(own.b.stats().backlogs).toBeGreaterThan(0);
    let text = '';
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => (text += d));
    sock.resume();
    const reconcile = 'event: reconcile\ndata: {"type":"reconcile","reason":"backlog"}\n\n';
    await waitUntil(() => text.includes(reconcile), 'the backlog reconcile', 10_000);
    // Pacing, not a wait for a condition: the live event goes out well after the reconcile, so what
    // arrives is the client being live again, not the tail of its backlog.
    await sleep(300);
    await h.publish(makeEvent('news.approved', 999_999));
    await waitUntil(() => text.includes('"id":999999'), 'a live event after the reconcile', 10_000);
    expect(text.indexOf('"id":999999')).toBeGreaterThan(text.indexOf(reconcile));
    sock.destroy();
    await own.close();
  });

  it('shares the connection caps with WebSocket connections', async () => {
    const own = await h.start({ maxConnections: 100, maxPerIp: 3 });
    const ws1 = await connectOpen(own.url);
    const ws2 = await connectOpen(own.url);
    const s1 = await sseOpen(own.http);
    const wsOver = connect(own.url);
    expect((await wsOver.closed).code).toBe(4003);
    const sseOver = await rawSse(own.http);
    expect(sseOver.status).toBe(503);
    expect(sseOver.headers['retry-after']).toBeDefined();
    await sseOver.ended;
    expect(JSON.parse(sseOver.text()).error).toMatchObject({ code: 'capacity_exceeded', message: expect.stringMatching(/too many connections from this address/) });
    expect(own.b.stats()).toMatchObject({ connections: 3, sseConnections: 1 });
    // A slot an SSE stream frees is a slot a WebSocket can take, and the reverse.
    s1.close();
    await waitUntil(() => own.b.connections() === 2, 'the SSE slot to be freed');
    const ws3 = await connectOpen(own.url);
    void ws1.close();
    await waitUntil(() => own.b.connections() === 2, 'the WebSocket slot to be freed');
    const s2 = await sseOpen(own.http);
    expect(own.b.connections()).toBe(3);
    s2.close();
    for (const w of [ws2, ws3]) void w.close();
    await own.close();
  });

  it('ends every SSE response on shutdown, after flushing the pending batch', async () => {
    const own = await h.start({ batchMs: 10_000 });
    const r = await rawSse(own.http);
    await h.publish(makeEvent('news.approved', 30));
    await waitUntil(() => own.b.stats().reader.entries >= 1, 'the reader to read the event (pending in the 10 s batch)');
    expect(r.text()).not.toContain('"id":30');
    await own.close();
    await r.ended;
    expect(r.text()).toContain('"id":30,');
    expect(r.res.complete).toBe(true); // ended cleanly, not cut
  });
});
