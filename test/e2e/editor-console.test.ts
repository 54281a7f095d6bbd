/**
 * The editors' console in a real browser: headless Chromium (playwright-core,
 * Debian's chromium) with an injected EIP-1193 provider backed by a viem local account. Two editors
 * sign in with their wallets; a fresh submission arrives live in both queues; one editor opens it,
 * sees its provenance matches, kills it as a duplicate of another article; the other editor's queue
 * marks it decided elsewhere; a refused action shows the API's message; the kill is in the
 * moderation log and in the submitter's submissions list. A non-editor is refused.
 * Screenshots of the queue and item pages at desktop and phone widths go to SCREENSHOT_DIR.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newAccount, sessionFor, type Session } from '../support/auth.js';
import { launchChromium } from '../support/chromium.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { startRelay, type RunningRelay } from '../support/relay.js';
import { startConsoleStack, type ConsoleStack } from '../support/console-stack.js';

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../../test-output/editor-console');

let deps: TestDeps;
let relay: RunningRelay;
let stack: ConsoleStack;
let browser: Browser;
let base: string;
let submitter: Session;
let seniorEditor: Session;
const contexts: BrowserContext[] = [];
const cspViolations: string[] = [];

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  deps = await createTestDeps();
  relay = await startRelay(deps);
  // The web process's own origin is the trusted one (CSRF, the stream's Origin check, the sign-in message).
  stack = await startConsoleStack(deps, { batchMs: 20, config: { EDITOR_PROVENANCE_WAIT_MS: 3000 } });
  base = stack.base;
  submitter = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'contributor' });
  seniorEditor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'senior' });
  browser = await launchChromium();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
}, 240_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await stack?.close();
  await relay?.close();
  await deps?.close();
});

async function api(method: string, p: string, body: unknown, who: Session) {
  const r = await fetch(base + p, { method, headers: { ...who.bearer, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

/** A user row for a wallet (as an admin would grant the role). */
async function walletUser(account: PrivateKeyAccount, roles: string[], username: string | null) {
  await deps.db.insertInto('users').values({ wallet_address: account.address.toLowerCase(), roles, username, account_type: 'human' }).execute();
}

/** A browser context whose pages have window.ethereum backed by `account` (EIP-1193 request()). */
async function walletContext(account: PrivateKeyAccount, viewport = DESKTOP): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  await context.exposeBinding('__walletSign', async (_source, hex: string, address: string) => {
    if (address.toLowerCase() !== account.address.toLowerCase()) throw new Error('unknown account');
    return account.signMessage({ message: { raw: hex as `0x${string}` } });
  });
  await context.addInitScript((address: string) => {
    (globalThis as any).ethereum = {
      isTestWallet: true,
      async request({ method, params }: { method: string; params?: unknown[] }) {
        if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address];
        if (method === 'personal_sign') return (globalThis as any).__walletSign(params![0], params![1]);
        throw Object.assign(new Error(`unsupported method ${method}`), { code: 4200 });
      },
    };
  }, account.address);
  return context;
}

function watchCsp(page: Page) {
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text());
  });
}

async function signInAt(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  watchCsp(page);
  const first = await page.goto(`${base}/editor/`);
  expect(first!.status()).toBe(401);
  const csp = first!.headers()['content-security-policy'];
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  await page.getByRole('button', { name: 'Sign in with wallet' }).click();
  await page.waitForSelector('h1:text("Review queue"), h1:text("Editors only")');
  return page;
}

it('two editors work the queue live; one kills a fresh submission as a duplicate; the other sees it leave; a non-editor is refused', async () => {
  // An approved article the new submission duplicates (its headline is what provenance matches).
  const orig = await api('POST', '/api/v1/news/post', { url: 'https://chain.example/pectra-live', headline: 'Ethereum Pectra upgrade goes live on mainnet' }, submitter);
  expect(orig.status).toBe(201);
  const originalId = orig.body.article_id as number;
  expect((await api('POST', `/api/v1/news/${originalId}/approve`, undefined, seniorEditor)).status).toBe(200);

  const alice = newAccount();
  const bob = newAccount();
  await walletUser(alice, ['editor'], 'alice');
  await walletUser(bob, ['editor'], null);
  const alicePage = await signInAt(await walletContext(alice));
  const bobPage = await signInAt(await walletContext(bob));
  for (const p of [alicePage, bobPage]) {
    await expect.poll(() => p.getAttribute('#live', 'data-state'), { timeout: 10_000 }).toBe('open');
  }
  expect(await alicePage.textContent('#who')).toBe('alice');

  // A fresh submission arrives in both queues without a reload.
  const sub = await api(
    'POST',
    '/api/v1/news/post',
    { url: 'https://other.example/news/pectra-mainnet?utm_source=x', headline: 'Ethereum Pectra upgrade goes live on mainnet today' },
    submitter,
  );
  expect(sub.status).toBe(201);
  const id = sub.body.article_id as number;
  for (const p of [alicePage, bobPage]) await p.waitForSelector(`#item-${id}`, { timeout: 15_000 });
  const row = alicePage.locator(`#item-${id}`);
  await expect.poll(() => row.locator('h2').textContent()).toBe('Ethereum Pectra upgrade goes live on mainnet today');
  expect(await row.locator('.meta').textContent()).toContain('other.example');
  expect(await row.locator('.submitter').textContent()).toBe('contributor');
  expect(await row.locator('.acct').textContent()).toBe('human');
  expect(await alicePage.textContent('#status')).toContain('New in the queue');
  // Its provenance is filled in after the page rendered (the page never waited for it).
  await row.locator('.prov[data-prov=done]').waitFor({ timeout: 15_000 });

  await alicePage.screenshot({ path: path.join(SCREENSHOT_DIR, 'queue-desktop.png'), fullPage: true });
  await alicePage.setViewportSize(PHONE);
  await alicePage.screenshot({ path: path.join(SCREENSHOT_DIR, 'queue-phone.png'), fullPage: true });
  await alicePage.setViewportSize(DESKTOP);

  // Keyboard: j focuses the first item (the newest: ours), o opens it.
  await alicePage.locator('body').press('j');
  await expect.poll(() => alicePage.evaluate(() => (globalThis as any).document.activeElement?.closest('.item')?.id)).toBe(`item-${id}`);
  await alicePage.keyboard.press('o');
  await alicePage.waitForURL(`${base}/editor/items/${id}`);
  const matches = alicePage.locator('.prov[data-prov=done] .matches a');
  await matches.first().waitFor();
  expect(await matches.first().textContent()).toBe('Ethereum Pectra upgrade goes live on mainnet');
  expect(await matches.first().getAttribute('href')).toBe('https://chain.example/pectra-live');
  expect(await alicePage.textContent('.verdict')).toMatch(/Known|Duplicate|Stale/);
  await alicePage.screenshot({ path: path.join(SCREENSHOT_DIR, 'item-desktop.png'), fullPage: true });
  await alicePage.setViewportSize(PHONE);
  await alicePage.screenshot({ path: path.join(SCREENSHOT_DIR, 'item-phone.png'), fullPage: true });
  await alicePage.setViewportSize(DESKTOP);

  // Edit from the item page: only changed fields are sent; a bad value shows the API's message.
  await alicePage.getByLabel('Tags (comma-separated)').fill('defi, l2');
  await alicePage.getByLabel('Token symbols (comma-separated)').fill('ETH');
  await alicePage.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => alicePage.textContent('#status')).toBe('Saved: tags, token_symbols.');
  const rec = await api('GET', `/api/v1/news/${id}/`, undefined, seniorEditor);
  expect([rec.body.tags, rec.body.token_symbols]).toEqual([['defi', 'l2'], ['ETH']]);
  await alicePage.getByLabel('Issuer website').fill('not a url');
  await alicePage.getByRole('button', { name: 'Save changes' }).click();
  await expect.poll(() => alicePage.textContent('#edit-error')).toContain('must be an http:// or https:// URL');
  await alicePage.getByLabel('Issuer website').fill('');

  // The schedule dialog shows the local time it will send as UTC; cancelling changes nothing.
  await alicePage.locator('.item-page button[data-act=schedule]').click();
  await alicePage.locator('#schedule-dialog').waitFor({ state: 'visible' });
  await alicePage.locator('#schedule-at').fill('2031-05-04T10:30');
  expect(await alicePage.textContent('#schedule-utc')).toBe(await alicePage.evaluate(() => new Date('2031-05-04T10:30').toISOString()));
  await alicePage.locator('#schedule-dialog').getByRole('button', { name: 'Cancel' }).click();
  expect(await alicePage.textContent('#item-status')).toBe('submitted');

  // Kill it as a duplicate of the original, with a note, from the item page's dialog (shortcut x).
  await alicePage.locator('body').press('x');
  const dialog = alicePage.locator('#kill-dialog');
  await dialog.waitFor({ state: 'visible' });
  await alicePage.getByLabel('Reason').first().selectOption('duplicate');
  await alicePage
    .getByLabel('Duplicate of (article id, for “Duplicate”)')
    .first()
    .fill(String(originalId + 100_000));
  await dialog.getByRole('button', { name: 'Kill' }).click();
  // The API's refusal is shown and nothing changed.
  await expect.poll(() => dialog.locator('.dialog-error').textContent()).toContain(`no article ${originalId + 100_000}`);
  await alicePage.getByLabel('Duplicate of (article id, for “Duplicate”)').first().fill(String(originalId));
  await alicePage.getByLabel('Note for editors (optional, not shown to the submitter)').fill('ran it yesterday');
  await dialog.getByRole('button', { name: 'Kill' }).click();
  await expect.poll(() => alicePage.textContent('.item-page .outcome')).toBe(`You killed this (Duplicate of another article #${originalId}).`);
  expect(await alicePage.textContent('#item-status')).toBe('killed');

  // Bob's queue marks it decided elsewhere, without a reload.
  const bobRow = bobPage.locator(`#item-${id}`);
  await expect.poll(() => bobRow.locator('.outcome').textContent(), { timeout: 10_000 }).toBe('Decided elsewhere: killed.');
  expect(await bobRow.getAttribute('class')).toContain('elsewhere');
  expect(await bobRow.locator('button[data-act=approve]').isDisabled()).toBe(true);

  // A decision that lost the race shows the API's message: Bob's stream is cut, Alice approves
  // another submission by API, Bob then tries to kill it from his stale queue.
  const second = await api('POST', '/api/v1/news/post', { url: 'https://third.example/story', headline: 'A lending protocol pauses withdrawals' }, submitter);
  const secondId = second.body.article_id as number;
  await bobPage.waitForSelector(`#item-${secondId}`, { timeout: 15_000 });
  await bobPage.evaluate(() => (globalThis as any).editorStream.close());
  expect((await api('POST', `/api/v1/news/${secondId}/approve`, undefined, seniorEditor)).status).toBe(200);
  await bobPage.locator(`#item-${secondId} button[data-act=kill]`).click();
  // The dialog preselects no reason: an editor picks one.
  await bobPage.locator('#kill-dialog').getByLabel('Reason').selectOption('off_topic');
  await bobPage.locator('#kill-dialog').getByRole('button', { name: 'Kill' }).click();
  await expect.poll(() => bobPage.locator(`#item-${secondId} .outcome`).textContent()).toContain('Refused: cannot kill an article that is approved');
  expect(await bobPage.textContent('#status')).toContain('cannot kill an article that is approved');

  // The moderation log (console page and public API) shows the kill with its reason.
  await alicePage.goto(`${base}/editor/modlog/`);
  const logRow = alicePage.locator(`#modlog tr[data-article="${id}"][data-action=kill]`);
  await logRow.waitFor();
  const logText = await logRow.textContent();
  expect(logText).toContain(`Duplicate of another article (duplicate of #${originalId})`);
  expect(logText).toContain('note: ran it yesterday');
  expect(logText).toContain('alice');
  const publicLog = (await (await fetch(`${base}/api/v1/modlog/?action=kill`)).json()) as any;
  expect(publicLog.results[0]).toMatchObject({ action: 'kill', article: { id }, reason: 'duplicate', duplicate_of: originalId, editor: { name: 'alice' } });
  expect(publicLog.results[0]).not.toHaveProperty('note');

  // The submitter sees why.
  const mine = await api('GET', '/api/v1/wallet/me/submissions/?status=killed', undefined, submitter);
  expect(mine.body.submissions.find((s: any) => s.id === id).decision).toEqual({ reason: 'duplicate', label: 'Duplicate of another article', duplicate_of: originalId });

  // A non-editor signs in and is refused the queue.
  const carol = newAccount();
  await walletUser(carol, [], 'carol');
  const carolPage = await signInAt(await walletContext(carol));
  expect(await carolPage.textContent('h1')).toBe('Editors only');
  expect(await carolPage.locator('#queue').count()).toBe(0);
  expect(await carolPage.content()).not.toContain('Ethereum Pectra');
  const refused = await carolPage.goto(`${base}/editor/items/${id}`);
  expect(refused!.status()).toBe(403);
  // Sign out: back to the sign-in page.
  await carolPage.getByRole('button', { name: 'Sign out' }).click();
  await carolPage.waitForSelector('#signin');

  expect(cspViolations).toEqual([]);
}, 120_000);
