/**
 * The editors' console when the stream refuses it: with the per-address cap taken (WS_MAX_PER_IP,
 * here 1, held by another client), the queue page says why it is not live and when it tries again,
 * and goes live on its own once a slot is free. Headless Chromium (Debian's chromium).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sessionFor } from '../support/auth.js';
import { launchChromium } from '../support/chromium.js';
import { startConsoleStack, type ConsoleStack } from '../support/console-stack.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
let stack: ConsoleStack;
let browser: Browser;
let base: string;
let streamUrl: string;

beforeAll(async () => {
  deps = await createTestDeps();
  stack = await startConsoleStack(deps, { maxPerIp: 1 });
  ({ base, streamUrl } = stack);
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
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
