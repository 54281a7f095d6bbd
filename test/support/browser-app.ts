/**
 * A browser test's app: useTestApp (its own deps, served over HTTP) and a headless chromium, both
 * ready in beforeAll and closed in afterAll. `base` is the app's URL.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { useTestApp } from './app.js';
import { launchChromium } from './chromium.js';

export function useBrowserApp() {
  const ui = { app: useTestApp(), browser: undefined as unknown as Browser, base: '' };
  beforeAll(async () => {
    ui.base = await ui.app.http.base;
    ui.browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await ui.browser?.close();
  });
  return ui;
}
