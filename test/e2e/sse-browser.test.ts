/**
 * SSE in a real browser (headless Chromium): a page served on the trusted origin opens
 * `new EventSource(<ws port>/sse/news/?..., {withCredentials: true})` across origins (another port),
 * receives filtered events (staff-only ones through the access_token cookie), and after the ws
 * process restarts reconnects by itself with Last-Event-ID and gets what it missed. A page on
 * another origin is refused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signAccessToken } from '../../src/identity/tokens.js';
import type { EventType } from '../../src/platform/events/events.js';
import { BroadcasterHarness, makeEvent, type RunningBroadcaster } from '../support/broadcaster-harness.js';
import { launchChromium } from '../support/chromium.js';

let h: BroadcasterHarness;
let browser: Browser;
const pages: http.Server[] = [];

/** A site on its own origin whose page opens an EventSource to `streamUrl` and records what arrives. */
async function site(streamUrl: () => string): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>stream</title><script>
      window.received = []; window.reconciles = []; window.opens = 0; window.errors = 0;
      const es = new EventSource(${JSON.stringify(streamUrl())}, { withCredentials: true });
      es.onopen = () => window.opens++;
      es.onerror = () => window.errors++;
      es.onmessage = (m) => window.received.push({ event: JSON.parse(m.data), lastEventId: m.lastEventId });
      es.addEventListener('reconcile', (m) => window.reconciles.push(JSON.parse(m.data)));
      window.es = es;
    </script>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  pages.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  h = await BroadcasterHarness.create();
  browser = await launchChromium();
}, 240_000);
afterAll(async () => {
  await browser?.close();
  for (const p of pages) p.close();
  await h?.close();
});

let eventId = 1;
const ev = (type: EventType, id: number) => makeEvent(type, id, { event_id: eventId++ });

it('a page on the trusted origin receives filtered events over EventSource, staff ones with its cookie, and resumes after a restart', async () => {
  let srv: RunningBroadcaster | null = null;
  const origin = await site(() => `${srv!.http}/sse/news/?tag=defi`);
  srv = await h.start({ trustedOrigin: origin, batchMs: 20, sseRetryMs: 100 });
  const context = await browser.newContext();
  const token = await signAccessToken(h.env.config.JWT_SECRET, { userId: 1, address: '0x1', roles: ['staff'] });
  await context.addCookies([{ name: 'access_token', value: token, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax' }]);
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => (globalThis as any).opens === 1);

  await h.publishArticles([
    [ev('news.approved', 1), { tags: ['defi'] }],
    [ev('news.submitted', 2), { tags: ['defi'] }],
    [ev('news.approved', 3), { tags: ['nft'] }],
  ]);
  await page.waitForFunction(() => (globalThis as any).received.length >= 2);
  const first = await page.evaluate(() => (globalThis as any).received);
  expect(first.map((m: any) => [m.event.id, m.event.type])).toEqual([
    [1, 'news.approved'],
    [2, 'news.submitted'],
  ]);
  expect(first.map((m: any) => m.lastEventId)).toEqual(first.map((m: any) => String(m.event.event_id)));

  // The ws process restarts; the browser reconnects by itself with Last-Event-ID.
  const port = srv.port;
  await srv.close();
  await h.publishArticles([
    [ev('news.approved', 4), { tags: ['defi'] }],
    [ev('news.approved', 5), { tags: ['gaming'] }],
  ]);
  srv = await h.start({ trustedOrigin: origin, batchMs: 20, sseRetryMs: 100 }, port);
  await page.waitForFunction(() => (globalThis as any).received.length >= 3, undefined, { timeout: 15_000 });
  await h.publishArticles([[ev('news.approved', 6), { tags: ['defi', 'nft'] }]]);
  await page.waitForFunction(() => (globalThis as any).received.length >= 4);
  const all = await page.evaluate(() => (globalThis as any).received.map((m: any) => m.event.id));
  expect(all).toEqual([1, 2, 4, 6]);
  expect(await page.evaluate(() => (globalThis as any).reconciles)).toEqual([]);
  expect(srv.b.stats().resumes.resumed).toBe(1);
  expect(await page.evaluate(() => (globalThis as any).opens)).toBeGreaterThanOrEqual(2);
  await context.close();
  await srv.close();
}, 60_000);

it('a page on another origin is refused (403) and its EventSource gives up', async () => {
  const trusted = await site(() => 'unused');
  let srv: RunningBroadcaster | null = null;
  const other = await site(() => `${srv!.http}/sse/news/`);
  srv = await h.start({ trustedOrigin: trusted });
  const page = await browser.newPage();
  await page.goto(`${other}/`);
  await page.waitForFunction(() => (globalThis as any).es.readyState === 2);
  expect(await page.evaluate(() => (globalThis as any).opens)).toBe(0);
  expect(srv.b.connections()).toBe(0);
  await page.close();
  await srv.close();
}, 30_000);
