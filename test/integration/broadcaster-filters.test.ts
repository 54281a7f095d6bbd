/**
 * Filtered WebSocket streams: `types`, `token_address`, `token_symbol`, `tag` on
 * /ws/news/. Events are published as the relay publishes them (field `a` beside the event).
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/identity/tokens.js';
import type { EventType, NewsEvent } from '../../src/platform/events/events.js';
import { BroadcasterHarness, connectOpen, makeEvent, ORIGIN, waitUntil, type ArticleAttrs, type RunningBroadcaster } from '../support/broadcaster-harness.js';
import { quietFor } from '../support/wait.js';

let h: BroadcasterHarness;
let srv: RunningBroadcaster;

beforeAll(async () => {
  h = await BroadcasterHarness.create();
  srv = await h.start({ batchMs: 30, maxPerIp: 100 });
});
afterAll(() => h.close());

const ETH = '0x' + 'e'.repeat(40);
const USDC = '0x' + 'c'.repeat(40);
const ids = (events: { id: number }[]) => events.map((e) => e.id);
const sorted = (events: { id: number }[]) => ids(events).sort((a, b) => a - b);
let nextEventId = 1;
const ev = (type: EventType, id: number): NewsEvent => makeEvent(type, id, { event_id: nextEventId++ });

/** Every kind, several values, a wire item without attributes, staff-only and sponsored events. */
function mixed(base: number): [NewsEvent, ArticleAttrs | null][] {
  return [
    [ev('news.approved', base + 1), { tags: ['defi'], token_addresses: [ETH], token_symbols: ['ETH'] }],
    [ev('news.approved', base + 2), { tags: ['nft'], token_addresses: [USDC], token_symbols: ['usdc'] }],
    [ev('news.approved', base + 3), { tags: ['defi', 'layer-2'], token_symbols: ['Eth', 'ARB'] }],
    [ev('news.tsunami', base + 4), null],
    [ev('news.submitted', base + 5), { tags: ['defi'], token_symbols: ['ETH'] }],
    [ev('news.sponsored', base + 6), { tags: ['nft'], token_addresses: [ETH] }],
    [ev('news.tsunami_promoted', base + 7), { tags: [] }],
    [ev('news.approved', base + 8), { tags: ['defi'], token_symbols: ['BTC'] }],
  ];
}

describe('filters on /ws/news/', () => {
  it('delivers to each kind of filter exactly the events that match it', async () => {
    const q = (query: Record<string, string | string[]>) => connectOpen(srv.url, { query });
    const clients = {
      none: await connectOpen(srv.url),
      address: await q({ token_address: ETH.toUpperCase().replace('0X', '0x') }),
      symbol: await q({ token_symbol: 'eth' }),
      tag: await q({ tag: 'layer-2' }),
      types: await q({ types: 'news.tsunami,news.tsunami_promoted' }),
      orWithin: await q({ token_symbol: ['usdc', 'BTC'] }),
      andAcross: await q({ tag: 'defi', token_symbol: 'ETH' }),
      typesAndTag: await q({ types: 'news.approved', tag: 'nft,defi' }),
    };
    await h.publishArticles(mixed(100));
    const want: Record<keyof typeof clients, number[]> = {
      none: [101, 102, 103, 104, 106, 107, 108],
      address: [101, 106],
      symbol: [101, 103],
      tag: [103],
      types: [104, 107],
      orWithin: [102, 108],
      andAcross: [101, 103],
      typesAndTag: [101, 102, 103, 108],
    };
    for (const [name, c] of Object.entries(clients)) {
      const got = await c.waitForEvents(want[name as keyof typeof clients].length);
      expect(sorted(got), name).toEqual(want[name as keyof typeof clients]);
    }
    // Check window: no client gets an event its filter leaves out.
    await quietFor(150);
    for (const [name, c] of Object.entries(clients)) {
      expect(c.events(), name).toHaveLength(want[name as keyof typeof clients].length);
      // The attributes are for matching only: never in what clients receive.
      for (const e of c.events()) expect(Object.keys(e).sort(), name).toEqual(['date_posted', 'event_id', 'headline', 'id', 'origin', 'slug', 'sponsored', 'status', 'type']);
      void c.close();
    }
  });

  it('keeps the staff rules: staff-only types asked for by an anonymous connection never arrive', async () => {
    const cookie = `access_token=${await signAccessToken(h.env.config.JWT_SECRET, { userId: 1, address: '0x1', roles: ['staff'] })}`;
    const query = { types: 'news.submitted,news.approved', tag: 'defi' };
    const anon = await connectOpen(srv.url, { query });
    const staff = await connectOpen(srv.url, { query, cookie });
    const staffOnly = await connectOpen(srv.url, { query: { types: 'news.submitted,news.killed' } });
    await h.publishArticles(mixed(200));
    expect(sorted(await staff.waitForEvents(4))).toEqual([201, 203, 205, 208]);
    expect(sorted(await anon.waitForEvents(3))).toEqual([201, 203, 208]);
    // Check window: the staff-only events never reach the anonymous or the filtered-out clients.
    await quietFor(150);
    expect(anon.events()).toHaveLength(3);
    expect(staff.events()).toHaveLength(4);
    expect(staffOnly.frames.filter((f) => f.data.type !== 'heartbeat')).toHaveLength(0);
    for (const c of [anon, staff, staffOnly]) void c.close();
  });

  it('sends a matching sponsored event at once ahead of the filtered batch, and a non-matching one not at all', async () => {
    const slow = await h.start({ batchMs: 800, maxPerIp: 100 });
    const c = await connectOpen(slow.url, { query: { tag: 'nft' } });
    const other = await connectOpen(slow.url, { query: { tag: 'defi' } });
    await h.publishArticles([[ev('news.approved', 300), { tags: ['nft'] }]]);
    await waitUntil(() => slow.b.stats().reader.entries >= 1, 'the reader to read 300 (pending in the 800 ms batch)');
    const t0 = Date.now();
    await h.publishArticles([
      [ev('news.sponsored', 301), { tags: ['nft'] }],
      [ev('news.sponsored', 302), { tags: ['gaming'] }],
    ]);
    await c.waitFor(() => c.batches().length >= 1, 'the sponsored frame', 600);
    expect(Date.now() - t0).toBeLessThan(500);
    expect(ids(c.batches()[0].data.events)).toEqual([301]);
    expect(c.batches()[0].data.cursor).toContain('_'); // sent ahead of the pending batch
    await c.waitFor(() => c.batches().length >= 2, 'the batch', 2000);
    expect(ids(c.batches()[1].data.events)).toEqual([300]);
    // Check window: no repeat for c, nothing for the defi client.
    await quietFor(100);
    expect(ids(c.events())).toEqual([301, 300]);
    expect(other.events()).toHaveLength(0);
    await slow.close();
  });

  it('builds one frame per distinct filter, whatever the order and case of its values', async () => {
    const before = srv.b.stats().groups;
    const a = await connectOpen(srv.url, { query: { token_symbol: ['eth', 'BTC'], tag: 'defi' } });
    const b = await connectOpen(srv.url, { query: { tag: 'DeFi', token_symbol: 'btc,Eth' } });
    const c = await connectOpen(srv.url, { query: { token_symbol: 'ETH' } });
    expect(srv.b.stats().groups).toBe(before + 2);
    expect(srv.b.stats().filteredConnections).toBe(3);
    await h.publishArticles(mixed(400));
    await a.waitForEvents(3);
    await b.waitForEvents(3);
    expect(a.frames.filter((f) => f.data.events).map((f) => f.data)).toEqual(b.frames.filter((f) => f.data.events).map((f) => f.data));
    expect(sorted(a.events())).toEqual([401, 403, 408]);
    expect(sorted(await c.waitForEvents(2))).toEqual([401, 403]);
    await Promise.all([a.close(), b.close(), c.close()]);
    await a.waitFor(() => srv.b.stats().groups === before, 'the emptied groups to go');
  });

  it('resumes with the filter: only the matching events missed, exactly once, then live', async () => {
    const query = { token_address: ETH };
    const a = await connectOpen(srv.url, { query });
    await h.publishArticles(mixed(500));
    await a.waitForEvents(2);
    const cursor = a.lastCursor()!;
    await a.close();
    await h.publishArticles(mixed(600));
    await h.publishArticles([[ev('news.approved', 700), { token_addresses: [USDC] }]]);
    const b = await connectOpen(srv.url, { query, cursor });
    expect(sorted(await b.waitForEvents(2))).toEqual([601, 606]);
    await h.publishArticles([
      [ev('news.approved', 701), { token_addresses: [USDC, ETH] }],
      [ev('news.approved', 702), { token_addresses: [USDC] }],
    ]);
    const [[last]] = (await h.redis.xrevrange(h.streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
    await b.waitForEvents(3);
    // Check window: no event the filter leaves out follows.
    await quietFor(150);
    expect(ids(b.events())).toEqual([601, 606, 701]);
    expect(b.controls('reconcile')).toHaveLength(0);
    // The live frame's cursor moved past 702, which the filter left out: a resume from it reads no further back.
    expect(b.lastCursor()).toBe(last);
    await b.close();
  });

  it('downgrades a filtered staff connection at token expiry and keeps its filter', async () => {
    const cookie = `access_token=${await signAccessToken(h.env.config.JWT_SECRET, { userId: 1, address: '0x1', roles: ['staff'] }, 2)}`;
    const exp = JSON.parse(Buffer.from(cookie.split('.')[1], 'base64url').toString()).exp * 1000;
    const c = await connectOpen(srv.url, { cookie, query: { tag: 'defi' } });
    await h.publishArticles([[ev('news.submitted', 800), { tags: ['defi'] }]]);
    expect(ids(await c.waitForEvents(1))).toEqual([800]);
    // The behaviour under test is the token's expiry on the wall clock (the server's, not faked): wait it out.
    await quietFor(Math.max(0, exp - Date.now()) + 100);
    await h.publishArticles([
      [ev('news.submitted', 801), { tags: ['defi'] }],
      [ev('news.approved', 802), { tags: ['defi'] }],
      [ev('news.approved', 803), { tags: ['nft'] }],
    ]);
    await c.waitForEvents(2);
    // Check window: the staff-only 801 and the non-matching 803 never arrive.
    await quietFor(150);
    expect(ids(c.events())).toEqual([800, 802]);
    void c.close();
  });
});

/** An upgrade request over plain HTTP: the status and body of a refusal. */
function upgrade(port: number, path: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-key': randomBytes(16).toString('base64'), 'sec-websocket-version': '13', origin: ORIGIN },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, body: null });
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('bad filters', () => {
  const cases: [string, string][] = [
    ['types=news.bogus', 'query.types'],
    ['types=news.approved&types=news.tsunami', 'query.types'],
    ['types=', 'query.types'],
    ['token_address=0x1234', 'query.token_address'],
    ['token_address=' + ETH + ',nope', 'query.token_address'],
    ['token_symbol=ETH!', 'query.token_symbol'],
    ['token_symbol=', 'query.token_symbol'],
    ['tag=Not%20a%20slug', 'query.tag'],
    ['tag=' + 'x'.repeat(33), 'query.tag'],
    ['tag=' + Array.from({ length: 51 }, (_, i) => `t${i}`).join(','), 'query.tag'],
    ['tags=defi', 'query.tags'],
    ['token_symbols=ETH', 'query.token_symbols'],
  ];

  it.each(cases)('refuses %s at the handshake with 400 naming %s', async (qs, path) => {
    const r = await upgrade(srv.port, `/ws/news/?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.message).toContain(path);
    expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(path);
    // An unknown name (tags, token_symbols) also carries the known name it is closest to.
    const suggestion = { 'query.tags': 'tag', 'query.token_symbols': 'token_symbol' }[path];
    expect(r.body.error.details.fields[0]).toEqual({ path, code: expect.any(String), message: expect.any(String), ...(suggestion ? { suggestion } : {}) });
  });

  it('names every bad parameter at once, takes no connection slot, and ignores unrelated parameters', async () => {
    const r = await upgrade(srv.port, '/ws/news/?types=x&tag=%20&token_address=1');
    expect(r.body.error.details.fields.map((f: { path: string }) => f.path).sort()).toEqual(['query.tag', 'query.token_address', 'query.types']);
    const own = await h.start({ maxConnections: 1 });
    for (let i = 0; i < 3; i++) expect((await upgrade(own.port, '/ws/news/?tag=Bad!')).status).toBe(400);
    expect(own.b.connections()).toBe(0);
    expect((await upgrade(own.port, '/ws/news/?v=2&cursor=&tag=defi')).status).toBe(101);
    await own.close();
  });
});
