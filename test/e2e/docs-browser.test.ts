/**
 * The interactive API reference opens in Chromium from this host alone: every request the page
 * makes goes to the service's own origin (no CDN, no fonts or images elsewhere: other hosts are
 * unreachable here, as offline), nothing is refused by its Content-Security-Policy, and a reader
 * finds an operation with the search box and opens it.
 */
import { expect, it } from 'vitest';
import { useBrowserApp } from '../support/browser-app.js';

const ui = useBrowserApp();

it('the docs page renders the OpenAPI document offline, under its CSP, and a reader finds an operation', async () => {
  const context = await ui.browser.newContext();
  const page = await context.newPage();
  const foreign: string[] = [];
  const refused: string[] = [];
  // Offline: a request to any other origin is recorded and fails.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${ui.base}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    foreign.push(url);
    return route.abort('internetdisconnected');
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
  });
  page.on('pageerror', (e) => refused.push(`page error: ${e.message}`));

  const res = await page.goto(`${ui.base}/api/v1/docs`);
  expect(res!.status()).toBe(200);
  const csp = res!.headers()['content-security-policy'];
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toMatch(/unsafe-eval|https?:|\*/);

  // The reference is rendered from /api/v1/openapi.json: the document's title is the page's heading.
  await page.locator('h1', { hasText: 'Squid News API' }).waitFor({ state: 'visible', timeout: 45_000 });
  // Search, then open the operation from the results.
  await page.fill('input[placeholder="Search..."]', 'Monthly leaderboards');
  const result = page.locator('[data-role="search:results"] li[data-item-id$="operation/getLeaderboards"]');
  await result.waitFor({ state: 'visible', timeout: 15_000 });
  await result.click();
  await page.locator('h2', { hasText: 'Monthly leaderboards: news submissions' }).waitFor({ state: 'visible', timeout: 15_000 });
  await expect.poll(() => page.url()).toContain('#tag/leaderboards/operation/getLeaderboards');
  expect(await page.locator('text=/api/v1/leaderboards/').count()).toBeGreaterThan(0);
  await page.screenshot({ path: '/tmp/api-docs.png' });

  expect(foreign).toEqual([]);
  expect(refused).toEqual([]);
  await context.close();
}, 120_000);

it('the index page links the docs; a browser follows the link to the reference', async () => {
  const page = await ui.browser.newPage();
  await page.goto(`${ui.base}/`);
  expect(await page.title()).toBe('Squid News API');
  for (const label of ['OpenAPI document', 'Get an API key', 'llms.txt', 'x402 discovery', 'Live event stream (WebSocket)']) {
    expect(await page.locator('a', { hasText: label }).count(), label).toBe(1);
  }
  await page.click('a:has-text("API reference")');
  await page.waitForURL(`${ui.base}/api/v1/docs`);
  await page.locator('h1', { hasText: 'Squid News API' }).waitFor({ state: 'visible', timeout: 45_000 });
  await page.close();
}, 90_000);
