/**
 * The editors' console over HTTP: who gets which page, the CSP, the fragments'
 * failure paths, and provenance looked up at most once per item per hour.
 */
import { describe, expect, it } from 'vitest';
import { EditorProvenance, PROVENANCE_CACHE_TTL_S } from '../../src/editor/provenance-cache.js';
import type { Session } from '../support/auth.js';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp({ user: { username: 'writer' }, editor: { roles: ['editor'], username: 'ed' } });
const ORIGIN = 'http://127.0.0.1:8000';

let n = 0;
async function submit(headline: string): Promise<number> {
  const r = await app.http.post('/api/v1/news/post', { url: `https://console.example/${++n}`, headline }, app.user.bearer);
  expect(r.status).toBe(201);
  return r.body.article_id;
}
const asCookie = (s: Session) => ({ cookie: `access_token=${s.token}` });

describe('pages', () => {
  it('signed out: the sign-in page (401) under a CSP without inline scripts; a bad cookie too', async () => {
    for (const headers of [{}, { cookie: 'access_token=garbage' }] as Record<string, string>[]) {
      const r = await app.http.get('/editor/', headers);
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
    const r = await app.http.get('/editor/', asCookie(app.user));
    expect(r.status).toBe(403);
    expect(r.text).toContain('Editors only');
    expect(r.text).not.toContain('Something waiting');
    expect((await app.http.get('/editor/items/1', asCookie(app.user))).status).toBe(403);
    expect((await app.http.get('/editor/modlog/', asCookie(app.user))).status).toBe(403);
  });

  it('an editor gets the queue, newest first, with headline, domain, submitter, tokens and tags; an unknown item is 404, a bad id 400', async () => {
    const a = await submit('Queue item one');
    const b = await submit('Queue item <two> & more');
    expect((await app.http.request('PATCH', `/api/v1/news/${b}/`, { tags: ['defi'], token_symbols: ['UNI'] }, app.editor.bearer)).status).toBe(200);
    const r = await app.http.get('/editor/', asCookie(app.editor));
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
    expect((await app.http.request('PATCH', `/api/v1/news/${a}/`, { headline: 'Queue item one, edited' }, app.editor.bearer)).status).toBe(200);
    const again = await app.http.get('/editor/', asCookie(app.editor));
    expect(again.text).toContain('Queue item one, edited');
    expect(again.text).not.toContain('>Queue item one<');
    expect((await app.http.post(`/api/v1/news/${b}/kill`, { reason: 'spam' }, app.editor.bearer)).status).toBe(200);
    expect((await app.http.get('/editor/', asCookie(app.editor))).text).not.toContain(`id="item-${b}"`);
    // Every field of the item page (edit form and dialogs) has a label naming it.
    const item = await app.http.get(`/editor/items/${a}`, asCookie(app.editor));
    expect(item.status).toBe(200);
    const fields = [...item.text.matchAll(/<(?:input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((m) => m[1]);
    expect(fields.length).toBeGreaterThanOrEqual(12);
    for (const f of fields) expect(item.text, f).toContain(`<label for="${f}">`);
    expect((await app.http.get('/editor/items/99999999', asCookie(app.editor))).status).toBe(404);
    expect((await app.http.get('/editor/items/abc', asCookie(app.editor))).status).toBe(400);
    expect((await app.http.get('/editor/items/0', asCookie(app.editor))).status).toBe(400);
    expect((await app.http.get('/editor/items/99999999999', asCookie(app.editor))).status).toBe(400);
  });

  it('the kill dialog preselects no reason: its required select starts on an empty choice', async () => {
    const page = await app.http.get('/editor/', asCookie(app.editor));
    const select = /<select id="kill-reason"[^>]*>([\s\S]*?)<\/select>/.exec(page.text)?.[1] ?? '';
    expect(page.text).toMatch(/<select id="kill-reason"[^>]*required/);
    expect(select).toMatch(/^<option value="">/);
    expect(select).not.toContain('selected');
  });

  it('serves its script and style sheet, immutable under their content hash', async () => {
    const page = await app.http.get('/editor/', asCookie(app.editor));
    const js = /src="(\/editor\/assets\/editor\.js\?v=[0-9a-f]+)"/.exec(page.text)![1];
    const r = await app.http.get(js);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('javascript');
    expect(r.headers.get('cache-control')).toContain('immutable');
    expect((await app.http.get('/editor/assets/editor.css')).headers.get('content-type')).toContain('text/css');
    expect((await app.http.get('/editor/assets/evil.js')).status).toBe(400);
  });
});

describe('fragments', () => {
  it("refuse an editor's API key (401, as the pages do): the console is a signed-in browser session", async () => {
    const key = generateApiKey();
    const keyId = generateKeyId();
    await insertApiKey(app.deps.db, { id: keyId, hash: key.hash, first4: key.first4, last4: key.last4, name: 'editor key', email: null, useCase: null, userId: app.editor.userId });
    const bearer = { authorization: `Bearer ${key.raw}` };
    expect((await app.http.get('/editor/', bearer)).status).toBe(401);
    const id = await submit('Fragment item for a key');
    for (const p of [`/editor/items/${id}/row`, `/editor/items/${id}/provenance`]) {
      const r = await app.http.get(p, bearer);
      expect(r.status, p).toBe(401);
      expect(r.body.error.code, p).toBe('auth_required');
    }
  });

  it('refuse signed-out callers (401), non-editors (403), unknown items (404) and bad ids (400)', async () => {
    const id = await submit('Fragment item');
    for (const p of [`/editor/items/${id}/row`, `/editor/items/${id}/provenance`]) {
      expect((await app.http.get(p)).status).toBe(401);
      const forbidden = await app.http.get(p, asCookie(app.user));
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.code).toBe('editor_required');
    }
    expect((await app.http.get('/editor/items/99999999/row', asCookie(app.editor))).status).toBe(404);
    expect((await app.http.get('/editor/items/x/provenance', asCookie(app.editor))).status).toBe(400);
    const row = await app.http.get(`/editor/items/${id}/row`, asCookie(app.editor));
    expect(row.status).toBe(200);
    expect(row.text).toMatch(new RegExp(`^<li class="item" id="item-${id}"`));
  });

  it('provenance: computed on first view, then served from the cache for the hour (one lookup per item)', async () => {
    const approved = await submit('Solana validators ship a new client release');
    expect((await app.http.post(`/api/v1/news/${approved}/approve`, undefined, app.editor.bearer)).status).toBe(200);
    const id = await submit('Solana validators ship new client release');
    const first = await app.http.get(`/editor/items/${id}/provenance`, asCookie(app.editor));
    expect(first.status).toBe(200);
    expect(first.text).toContain('data-prov="done"');
    expect(first.text).toContain('Solana validators ship a new client release');
    const key = `${app.deps.config.QUEUE_PREFIX}:editor:prov:${id}`;
    const ttl = await app.deps.redis.ttl(key);
    expect(ttl).toBeGreaterThan(PROVENANCE_CACHE_TTL_S - 60);
    const stored = JSON.parse((await app.deps.redis.get(key))!);

    // Another matching article appears; within the hour the verdict is not looked up again.
    const later = await submit('Solana validators ship a new client release today');
    expect((await app.http.post(`/api/v1/news/${later}/approve`, undefined, app.editor.bearer)).status).toBe(200);
    const again = await app.http.get(`/editor/items/${id}/provenance`, asCookie(app.editor));
    expect(again.text).toBe(first.text);
    expect(JSON.parse((await app.deps.redis.get(key))!).meta.checked_at).toBe(stored.meta.checked_at);
    // The queue page shows the cached verdict without computing anything.
    const queue = await app.http.get('/editor/', asCookie(app.editor));
    expect(queue.text).toContain(`<div class="prov" data-prov="done" data-id="${id}">`);

    // Concurrent views from several processes: one claim, one lookup.
    const fresh = await submit('Arbitrum DAO votes on a treasury diversification plan');
    const procs = [new EditorProvenance(app.deps), new EditorProvenance(app.deps), new EditorProvenance(app.deps)];
    const item = { id: fresh, url: `https://console.example/${n}`, headline: 'Arbitrum DAO votes on a treasury diversification plan' };
    const results = await Promise.all(procs.map((p) => p.get(item, 3000)));
    expect(results.map((r) => r.state)).toEqual(['done', 'done', 'done']);
    expect(procs.reduce((s, p) => s + p.lookups, 0)).toBe(1);
    // Once the hour is over (the key expired) it is looked up again.
    await app.deps.redis.del(`${app.deps.config.QUEUE_PREFIX}:editor:prov:${fresh}`);
    await procs[0].get(item, 3000);
    expect(procs[0].lookups + procs[1].lookups + procs[2].lookups).toBe(2);
  });

  it('a view that cannot wait gets "checking" (202) while the lookup it started finishes in the background', async () => {
    const id = await submit('Bitcoin miners move coins to exchanges');
    const p = new EditorProvenance(app.deps);
    const r = await p.get({ id, url: `https://console.example/${n}`, headline: 'Bitcoin miners move coins to exchanges' }, 0);
    expect(['pending', 'done']).toContain(r.state);
    await expect.poll(async () => (await p.peek([id])).get(id)!.state, { timeout: 5000 }).toBe('done');
    expect(p.lookups).toBe(1);
  });
});

describe('actions through the REST API from the page', () => {
  it('a cookie-authenticated decision without our Origin is refused by the CSRF check; with it, it works', async () => {
    const id = await submit('CSRF check item');
    const bad = await app.http.post(`/api/v1/news/${id}/kill`, { reason: 'spam' }, { ...asCookie(app.editor), origin: 'https://evil.example' });
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe('csrf_origin_mismatch');
    const ok = await app.http.post(`/api/v1/news/${id}/kill`, { reason: 'spam' }, { ...asCookie(app.editor), origin: ORIGIN });
    expect(ok.status).toBe(200);
  });
});
