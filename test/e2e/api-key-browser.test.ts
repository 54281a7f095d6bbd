import { expect, it } from 'vitest';
import { useBrowserApp } from '../support/browser-app.js';

const ui = useBrowserApp();

it('a person fills the signup form, copies the key once, and the dashboard never shows it again', async () => {
  const page = await ui.browser.newPage();
  await page.goto(`${ui.base}/api-key/signup/`);
  await page.fill('#name', 'Browser <b>Test</b>');
  await page.fill('#email', 'browser@example.com');
  await page.click('button[type=submit]');
  const raw = (await page.textContent('#raw-key'))!.trim();
  expect(raw).toMatch(/^squid_[A-Za-z0-9_-]{43}$/);
  // The name is shown as text, not markup.
  expect(await page.locator('td', { hasText: 'Browser <b>Test</b>' }).count()).toBe(1);

  // The key works.
  const r = await fetch(`${ui.base}/api/v1/api-keys/me/`, { headers: { authorization: `Bearer ${raw}` } });
  expect(r.status).toBe(200);

  // Follow the bookmark link and reload: the raw key is gone, the masked key and tier remain.
  await page.click('a[href^="/api-key/dashboard/"]');
  await page.reload();
  const html = await page.content();
  expect(html).not.toContain(raw);
  expect(await page.locator('#raw-key').count()).toBe(0);
  expect((await page.textContent('#masked-key'))!).toContain(raw.slice(-4));
  expect(await page.textContent('#tier')).toBe('free');
  expect(await page.textContent('#usage-today')).toMatch(/^1 of 1,000 requests/);
  await page.screenshot({ path: '/tmp/api-key-dashboard.png' });
}, 60_000);
