/**
 * The editors' console when the stream refuses it: with the per-address cap taken (WS_MAX_PER_IP,
 * here 1, held by another client), the queue page says why it is not live and when it tries again,
 * and goes live on its own once a slot is free. Headless Chromium (Debian's chromium).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { eventStreamKey } from '../../src/platform/events/events.js';
import { koaListener } from '../../src/platform/http/listener.js';
import { createBroadcaster, type Broadcaster } from '../../src/stream/server.js';
import { sessionFor } from '../support/auth.js';
import { CHROMIUM_ARGS, ensureChromium } from '../support/chromium.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
let server: http.Server;
let broadcaster: Broadcaster;
let browser: Browser;
let base: string;
let streamUrl: string;

beforeAll(async () => {
  const executablePath = ensureChromium();
  deps = await createTestDeps();
  server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  broadcaster = createBroadcaster({
    redisUrl: deps.config.REDIS_URL,
    streamKey: eventStreamKey(deps.config.QUEUE_PREFIX),
    trustedOrigin: base,
    log: deps.log,
    jwtSecret: deps.config.JWT_SECRET,
    readBlockMs: 500,
    maxPerIp: 1,
  });
  await broadcaster.ready;
  await new Promise<void>((r) => broadcaster.server.listen(0, '127.0.0.1', r));
  streamUrl = `http://127.0.0.1:${(broadcaster.server.address() as AddressInfo).port}/sse/news/`;
  Object.assign(deps.config, { TRUSTED_ORIGIN: base, PUBLIC_BASE_URL: base, EDITOR_STREAM_URL: streamUrl });
  server.on('request', koaListener(createApp(deps)));
  browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await broadcaster?.close();
  await new Promise((r) => server?.close(r));
  await deps?.close();
});

it('says the stream is at capacity and when it retries, then goes live once a slot is free', async () => {
  // Another client of this address holds the only slot.
  const holder = new AbortController();
  const held = await fetch(streamUrl, { signal: holder.signal, headers: { origin: base } });
  expect(held.status).toBe(200);

  const editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'capped' });
  const context = await browser.newContext();
  await context.addCookies([{ name: 'access_token', value: editor.token, domain: '127.0.0.1', path: '/' }]);
  const page = await context.newPage();
  expect((await page.goto(`${base}/editor/`))!.status()).toBe(200);
  const live = page.locator('#live');
  await expect.poll(() => live.textContent(), { timeout: 15_000 }).toMatch(/^Live: disconnected \(too many connections from this address \(1\)\); retrying in \d+ s$/);
  expect(await live.getAttribute('data-state')).toBe('closed');

  holder.abort();
  await held.body?.cancel().catch(() => undefined);
  // Retry-After is 10 s: the page tries again on its own and connects.
  await expect.poll(() => live.textContent(), { timeout: 30_000, interval: 250 }).toBe('Live: connected');
  await context.close();
}, 90_000);
