/**
 * The editors' console over HTTP: who gets which page, the CSP, the fragments'
 * failure paths, and provenance looked up at most once per item per hour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { EditorProvenance, PROVENANCE_CACHE_TTL_S } from '../../src/editor/provenance-cache.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let user: Session;
let editor: Session;
const ORIGIN = 'http://127.0.0.1:8000';

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  user = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'writer' });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'ed' });
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

let n = 0;
async function submit(headline: string): Promise<number> {
  const r = await http.post('/api/v1/news/post', { url: `https://console.example/${++n}`, headline }, user.bearer);
  expect(r.status).toBe(201);
  return r.body.article_id;
}
const asCookie = (s: Session) => ({ cookie: `access_token=${s.token}` });

describe('pages', () => {
  it('signed out: the sign-in page (401) under a CSP without inline scripts; a bad cookie too', async () => {
    for (const headers of [{}, { cookie: 'access_token=garbage' }] as Record<string, string>[]) {
      const r = await http.get('/editor/', headers);
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toContain('text/html');
      expect(r.text).toContain('Sign in with wallet');
      expect(r.text).not.toContain('id="queue"');
      const csp = r.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("connect-src 'self' http://127.0.0.1:8001");
      expect(csp).not.toContain('unsafe');
      expect(r.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(r.text).not.toMatch(/\son[a-z]+=/);
    }
  });

  it('a signed-in non-editor gets "Editors only" (403), never the queue', async () => {
    await submit('Something waiting');
    const r = await http.get('/editor/', asCookie(user));
    expect(r.status).toBe(403);
    expect(r.text).toContain('Editors only');
    expect(r.text).not.toContain('Something waiting');
    expect((await http.get('/editor/items/1', asCookie(user))).status).toBe(403);
    expect((await http.get('/editor/modlog/', asCookie(user))).status).toBe(403);
  });

  it('an editor gets the queue, newest first, with headline, domain, submitter, tokens and tags; an unknown item is 404, a bad id 400', async () => {
    const a = await submit('Queue item one');
    const b = await submit('Queue item <two> & more');
    expect((await http.request('PATCH', `/api/v1/news/${b}/`, { tags: ['defi'], token_symbols: ['UNI'] }, editor.bearer)).status).toBe(200);
    const r = await http.get('/editor/', asCookie(editor));
    expect(r.status).toBe(200);
    const ib = r.text.indexOf(`id="item-${b}"`);
    const ia = r.text.indexOf(`id="item-${a}"`);
    expect(ib).toBeGreaterThan(0);
    expect(ib).toBeLessThan(ia);
    expect(r.text).toContain('Queue item &lt;two&gt; &amp; more');
    expect(r.text).toContain('console.example');
    expect(r.text).toContain('<span class="submitter">writer</span>');
    expect(r.text).toContain('<span class="chip">UNI</span>');
    expect(r.text).toContain('<span class="chip">defi</span>');
    expect(r.text).toContain('Keyboard shortcuts');
    // Rows are reused between requests only while the article is unchanged: an edit shows at once,
    // and a decided item leaves the queue.
    expect((await http.request('PATCH', `/api/v1/news/${a}/`, { headline: 'Queue item one, edited' }, editor.bearer)).status).toBe(200);
    const again = await http.get('/editor/', asCookie(editor));
    expect(again.text).toContain('Queue item one, edited');
    expect(again.text).not.toContain('>Queue item one<');
    expect((await http.post(`/api/v1/news/${b}/kill`, { reason: 'spam' }, editor.bearer)).status).toBe(200);
    expect((await http.get('/editor/', asCookie(editor))).text).not.toContain(`id="item-${b}"`);
    // Every field of the item page (edit form and dialogs) has a label naming it.
    const item = await http.get(`/editor/items/${a}`, asCookie(editor));
    expect(item.status).toBe(200);
    const fields = [...item.text.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((m) => m[1]);
    expect(fields.length).toBeGreaterThanOrEqual(12);
    for (const f of fields) expect(item.text, f).toContain(`<label for="${f}">`);
    expect((await http.get('/editor/items/99999999', asCookie(editor))).status).toBe(404);
    expect((await http.get('/editor/items/abc', asCookie(editor))).status).toBe(400);
    expect((await http.get('/editor/items/0', asCookie(editor))).status).toBe(400);
    expect((await http.get('/editor/items/99999999999', asCookie(editor))).status).toBe(400);
  });

  it('the kill dialog preselects no reason: its required select starts on an empty choice', async () => {
    const page = await http.get('/editor/', asCookie(editor));
    const select = /<select id="kill-reason"[^>]*>([\s\S]*?)<\/select>/.exec(page.text)?.[1] ?? '';
    expect(page.text).toMatch(/<select id="kill-reason"[^>]*required/);
    expect(select).toMatch(/^<option value="">/);
    expect(select).not.toContain('selected');
  });

  it('serves its script and style sheet, immutable under their content hash', async () => {
    const page = await http.get('/editor/', asCookie(editor));
    const js = /src="(\/editor\/assets\/editor\.js\?v=[0-9a-f]+)"/.exec(page.text)![1];
    const r = await http.get(js);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('javascript');
    expect(r.headers.get('cache-control')).toContain('immutable');
    expect((await http.get('/editor/assets/editor.css')).headers.get('content-type')).toContain('text/css');
    expect((await http.get('/editor/assets/evil.js')).status).toBe(400);
  });
});

describe('fragments', () => {
  it("refuse an editor's API key (401, as the pages do): the console is a signed-in browser session", async () => {
    const key = generateApiKey();
    const keyId = generateKeyId();
    await insertApiKey(deps.db, { id: keyId, hash: key.hash, first4: key.first4, last4: key.last4, name: 'editor key', email: null, useCase: null, userId: editor.userId });
    const bearer = { authorization: `Bearer ${key.raw}` };
    expect((await http.get('/editor/', bearer)).status).toBe(401);
    const id = await submit('Fragment item for a key');
    for (const p of [`/editor/items/${id}/row`, `/editor/items/${id}/provenance`]) {
      const r = await http.get(p, bearer);
      expect(r.status, p).toBe(401);
      expect(r.body.error.code, p).toBe('auth_required');
    }
  });

  it('refuse signed-out callers (401), non-editors (403), unknown items (404) and bad ids (400)', async () => {
    const id = await submit('Fragment item');
    for (const p of [`/editor/items/${id}/row`, `/editor/items/${id}/provenance`]) {
      expect((await http.get(p)).status).toBe(401);
      const forbidden = await http.get(p, asCookie(user));
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.code).toBe('editor_required');
    }
    expect((await http.get('/editor/items/99999999/row', asCookie(editor))).status).toBe(404);
    expect((await http.get('/editor/items/x/provenance', asCookie(editor))).status).toBe(400);
    const row = await http.get(`/editor/items/${id}/row`, asCookie(editor));
    expect(row.status).toBe(200);
    expect(row.text).toMatch(new RegExp(`^<li class="item" id="item-${id}"`));
  });

  it('provenance: computed on first view, then served from the cache for the hour (one lookup per item)', async () => {
    const approved = await submit('Solana validators ship a new client release');
    expect((await http.post(`/api/v1/news/${approved}/approve`, undefined, editor.bearer)).status).toBe(200);
    const id = await submit('Solana validators ship new client release');
    const first = await http.get(`/editor/items/${id}/provenance`, asCookie(editor));
    expect(first.status).toBe(200);
    expect(first.text).toContain('data-prov="done"');
    expect(first.text).toContain('Solana validators ship a new client release');
    const key = `${deps.config.QUEUE_PREFIX}:editor:prov:${id}`;
    const ttl = await deps.redis.ttl(key);
    expect(ttl).toBeGreaterThan(PROVENANCE_CACHE_TTL_S - 60);
    const stored = JSON.parse((await deps.redis.get(key))!);

    // Another matching article appears; within the hour the verdict is not looked up again.
    const later = await submit('Solana validators ship a new client release today');
    expect((await http.post(`/api/v1/news/${later}/approve`, undefined, editor.bearer)).status).toBe(200);
    const again = await http.get(`/editor/items/${id}/provenance`, asCookie(editor));
    expect(again.text).toBe(first.text);
    expect(JSON.parse((await deps.redis.get(key))!).meta.checked_at).toBe(stored.meta.checked_at);
    // The queue page shows the cached verdict without computing anything.
    const queue = await http.get('/editor/', asCookie(editor));
    expect(queue.text).toContain(`<div class="prov" data-prov="done" data-id="${id}">`);

    // Concurrent views from several processes: one claim, one lookup.
    const fresh = await submit('Arbitrum DAO votes on a treasury diversification plan');
    const procs = [new EditorProvenance(deps), new EditorProvenance(deps), new EditorProvenance(deps)];
    const item = { id: fresh, url: `https://console.example/${n}`, headline: 'Arbitrum DAO votes on a treasury diversification plan' };
    const results = await Promise.all(procs.map((p) => p.get(item, 3000)));
    expect(results.map((r) => r.state)).toEqual(['done', 'done', 'done']);
    expect(procs.reduce((s, p) => s + p.lookups, 0)).toBe(1);
    // Once the hour is over (the key expired) it is looked up again.
    await deps.redis.del(`${deps.config.QUEUE_PREFIX}:editor:prov:${fresh}`);
    await procs[0].get(item, 3000);
    expect(procs[0].lookups + procs[1].lookups + procs[2].lookups).toBe(2);
  });

  it('a view that cannot wait gets "checking" (202) while the lookup it started finishes in the background', async () => {
    const id = await submit('Bitcoin miners move coins to exchanges');
    const p = new EditorProvenance(deps);
    const r = await p.get({ id, url: `https://console.example/${n}`, headline: 'Bitcoin miners move coins to exchanges' }, 0);
    expect(['pending', 'done']).toContain(r.state);
    await expect.poll(async () => (await p.peek([id])).get(id)!.state, { timeout: 5000 }).toBe('done');
    expect(p.lookups).toBe(1);
  });
});

describe('actions through the REST API from the page', () => {
  it('a cookie-authenticated decision without our Origin is refused by the CSRF check; with it, it works', async () => {
    const id = await submit('CSRF check item');
    const bad = await http.post(`/api/v1/news/${id}/kill`, { reason: 'spam' }, { ...asCookie(editor), origin: 'https://evil.example' });
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe('csrf_origin_mismatch');
    const ok = await http.post(`/api/v1/news/${id}/kill`, { reason: 'spam' }, { ...asCookie(editor), origin: ORIGIN });
    expect(ok.status).toBe(200);
  });
});
