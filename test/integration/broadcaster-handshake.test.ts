import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAccessToken } from '../../src/identity/tokens.js';
import { publicEventTypes, staffEventTypes, type NewsEvent } from '../../src/platform/events/events.js';
import { BroadcasterHarness, connect, connectOpen, makeEvent, waitUntil, type RunningBroadcaster } from '../support/broadcaster-harness.js';
import { quietFor } from '../support/wait.js';

let h: BroadcasterHarness;
let srv: RunningBroadcaster;
let secret: string;

beforeAll(async () => {
  h = await BroadcasterHarness.create();
  secret = h.env.config.JWT_SECRET;
  srv = await h.start({ batchMs: 50, maxPerIp: 100 });
});
afterAll(() => h.close());

const staffCookie = async (ttlS = 3600, roles: ('staff' | 'editor')[] = ['staff']) =>
  `access_token=${await signAccessToken(secret, { userId: 1, address: '0x0000000000000000000000000000000000000001', roles }, ttlS)}`;

const byId = (events: NewsEvent[]) => [...events].sort((a, b) => a.id - b.id);

describe('ws handshake', () => {
  it('refuses a missing Origin with HTTP 403 before the upgrade', async () => {
    const c = connect(srv.url, { origin: null });
    await expect(c.opened).rejects.toThrow(/403/);
    expect(c.rejectedStatus).toBe(403);
  });

  it('refuses another Origin with HTTP 403', async () => {
    const c = connect(srv.url, { origin: 'http://evil.example' });
    await expect(c.opened).rejects.toThrow(/403/);
    const c2 = connect(srv.url, { origin: 'http://127.0.0.1:8000/' });
    await expect(c2.opened).rejects.toThrow(/403/);
  });

  it('answers 404 off the stream path', async () => {
    const c = connect(srv.url, { path: '/ws/other/' });
    await expect(c.opened).rejects.toThrow(/404/);
  });

  it('accepts the trusted Origin without credentials', async () => {
    const c = await connectOpen(srv.url);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    void c.close();
  });
});

describe('visibility', () => {
  it('sends public events to everyone and staff-only events only to staff and editor cookies', async () => {
    const anon = await connectOpen(srv.url);
    const staff = await connectOpen(srv.url, { cookie: await staffCookie() });
    // Editors work the review queue from the stream (the console): they see staff events too.
    const editor = await connectOpen(srv.url, { cookie: await staffCookie(3600, ['editor']) });
    const types = [...staffEventTypes, ...publicEventTypes];
    const sent = types.map((t, i) => makeEvent(t, 100 + i, t === 'news.approved' ? { previous_status: 'submitted' } : {}));
    await h.publishMany(sent);
    const got = await staff.waitForEvents(sent.length);
    expect(byId(got)).toEqual(sent);
    expect(byId(await editor.waitForEvents(sent.length))).toEqual(sent);
    void editor.close();
    const publicOnly = sent.filter((e) => (publicEventTypes as readonly string[]).includes(e.type));
    expect(byId(await anon.waitForEvents(publicOnly.length))).toEqual(publicOnly);
    // Check window: no staff-only event reaches the anonymous client after the public ones.
    await quietFor(150);
    expect(anon.events()).toHaveLength(publicOnly.length);
    void anon.close();
    void staff.close();
  });

  it('treats an expired, invalid or non-staff cookie as anonymous', async () => {
    const cookies = [
      await staffCookie(-10),
      'access_token=not-a-jwt',
      'access_token=%E0%A4%A',
      `access_token=${await signAccessToken('another-secret-another-secret-0123456789', { userId: 1, address: '0x1', roles: ['staff'] })}`,
      // A signed-in user without the staff or editor role (editors do get staff events).
      await staffCookie(3600, []),
    ];
    const clients = await Promise.all(cookies.map((cookie) => connectOpen(srv.url, { cookie })));
    await h.publishMany([makeEvent('news.submitted', 200), makeEvent('news.killed', 201), makeEvent('news.approved', 202)]);
    for (const c of clients) {
      const got = await c.waitForEvents(1);
      expect(got.map((e) => e.id)).toEqual([202]);
    }
    // Check window: none of them gets the staff-only events.
    await quietFor(150);
    for (const c of clients) {
      expect(c.events().map((e) => e.id)).toEqual([202]);
      void c.close();
    }
  });

  it('downgrades a staff connection to public when its token expires', async () => {
    const cookie = await staffCookie(2);
    const exp = JSON.parse(Buffer.from(cookie.split('.')[1], 'base64url').toString()).exp * 1000;
    const c = await connectOpen(srv.url, { cookie });
    await h.publish(makeEvent('news.submitted', 300));
    expect((await c.waitForEvents(1)).map((e) => e.id)).toEqual([300]);
    // The behaviour under test is the token's expiry on the wall clock (the server's, not faked): wait it out.
    await quietFor(Math.max(0, exp - Date.now()) + 100);
    await h.publishMany([makeEvent('news.submitted', 301), makeEvent('news.approved', 302), makeEvent('news.retracted', 303)]);
    await c.waitForEvents(2);
    // Check window: the staff-only events published after expiry never arrive.
    await quietFor(200);
    expect(c.events().map((e) => e.id)).toEqual([300, 302]);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    void c.close();
  });
});

describe('shutdown', () => {
  it('closes every connection with 1001 and flushes the pending batch first', async () => {
    const own = await h.start({ batchMs: 10_000 });
    const a = await connectOpen(own.url);
    const b = await connectOpen(own.url);
    await h.publish(makeEvent('news.approved', 400));
    // The broadcaster has read the event, and holds it in the pending batch (10 s window).
    await waitUntil(() => own.b.stats().reader.entries >= 1, 'the reader to read the event');
    expect(a.events()).toHaveLength(0);
    await own.close();
    expect((await a.closed).code).toBe(1001);
    expect((await b.closed).code).toBe(1001);
    expect(a.events().map((e) => e.id)).toEqual([400]);
  });
});
