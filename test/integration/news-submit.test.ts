import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startTestWorkers } from '../support/workers.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { startPageServer, type PageServer } from '../support/news-page-server.js';
import request from '../support/request.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { waitFor } from '../support/wait.js';

let relay: RunningRelay;

let deps: TestDeps;
let http: ReturnType<typeof request>;
let pages: PageServer;
let workers: Worker[];
let alice: Session;
let bob: Session;
const ORIGIN = 'http://127.0.0.1:8000';

beforeAll(async () => {
  deps = await createTestDeps({ JOB_WAIT_MS: '1500', OUTBOUND_ALLOW_PRIVATE: 'true' });
  relay = await startRelay(deps);
  http = request(createApp(deps));
  pages = await startPageServer();
  workers = startTestWorkers(deps, ['page-title']);
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  alice = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'alice' });
  bob = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'bob' });
});
afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
  await pages.close();
  await http.close();
  await deps.close();
});

async function lastEvent() {
  await relayed(deps);
  const [entry] = (await deps.redis.xrevrange(deps.events.streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
  return entry ? JSON.parse(entry[1][1]) : null;
}

describe('POST /news/post', () => {
  it('creates a submitted article with the supplied headline and publishes news.submitted', async () => {
    const r = await http.post('/api/v1/news/post', { url: 'https://example.com/a/story-1', headline: '  Big   news  today ' }, alice.bearer);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      success: true,
      article_id: expect.any(Number),
      status: 'submitted',
      headline: 'Big news today',
      headline_source: 'supplied',
      slug: 'big-news-today',
      warnings: [],
    });
    const ev = await lastEvent();
    expect(ev).toMatchObject({ type: 'news.submitted', id: r.body.article_id, status: 'submitted', headline: 'Big news today', origin: 'manual', sponsored: null });
    expect(ev).not.toHaveProperty('previous_status');
    const row = await deps.db.selectFrom('articles').selectAll().where('id', '=', r.body.article_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ submitted_by: alice.userId, source: 'example.com', normalized_url: 'https://example.com/a/story-1' });
  });

  it('without a headline, fetches the page title (og:title) within the wait', async () => {
    const url = `${pages.base}/article?title=${encodeURIComponent('Aave & Uniswap "merge" rumours')}`;
    const r = await http.post('/api/v1/news/post', { url }, alice.bearer);
    expect(r.status).toBe(201);
    expect(r.body.headline).toBe('Aave & Uniswap "merge" rumours');
    expect(r.body.headline_source).toBe('page_title');
    expect(r.body.warnings).toEqual([]);
    // news.submitted is recorded with the article, before the page is read: it carries the headline
    // the article had then (the provisional one); the page title arrives in the record.
    const ev = await lastEvent();
    expect(ev).toMatchObject({ type: 'news.submitted', id: r.body.article_id, headline: '127.0.0.1/article', event_id: expect.any(Number) });
    expect((await http.get(`/api/v1/news/${r.body.article_id}/`, alice.bearer)).body.headline).toBe('Aave & Uniswap "merge" rumours');
  });

  it('falls back to <title> with entities decoded and whitespace folded', async () => {
    const r = await http.post('/api/v1/news/post', { url: `${pages.base}/plain-title` }, alice.bearer);
    expect(r.body.headline).toBe('Only the <title> & nothing else');
  });

  it('keeps a provisional headline with a headline_pending warning when the wait runs out, and the job fills it in later', async () => {
    const url = `${pages.base}/slow?ms=2500&title=Late+title`;
    const t0 = Date.now();
    const r = await http.post('/api/v1/news/post', { url }, alice.bearer);
    expect(Date.now() - t0).toBeLessThan(2400);
    expect(r.status).toBe(201);
    expect(r.body.headline).toBe('127.0.0.1/slow'); // provisional: host (no port) + path
    expect(r.body.headline_source).toBe('provisional');
    expect(r.body.warnings).toEqual([{ code: 'headline_pending', message: expect.stringContaining('provisional') }]);
    await expect.poll(async () => (await http.get(`/api/v1/news/${r.body.article_id}/`, alice.bearer)).body.headline, { timeout: 6000, interval: 100 }).toBe('Late title');
    const rec = await http.get(`/api/v1/news/${r.body.article_id}/`, alice.bearer);
    expect(rec.body.headline_source).toBe('page_title');
    expect(rec.body.slug).toBe('late-title');
  });

  it('warns headline_unavailable for pages without a usable title (not HTML, no title, 404)', async () => {
    for (const path of ['/text', '/no-title', '/missing']) {
      const r = await http.post('/api/v1/news/post', { url: `${pages.base}${path}` }, alice.bearer);
      expect(r.status).toBe(201);
      expect(r.body.headline_source).toBe('provisional');
      expect(r.body.warnings).toHaveLength(1);
      expect(r.body.warnings[0].code).toBe('headline_unavailable');
    }
  });

  it('an editor headline set while the title job runs is never overwritten', async () => {
    const r = await http.post('/api/v1/news/post', { url: `${pages.base}/slow?ms=1800&title=Page+title+late` }, alice.bearer);
    expect(r.body.warnings[0].code).toBe('headline_pending');
    const editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'] });
    const e = await http.request('PATCH', `/api/v1/news/${r.body.article_id}/`, { headline: 'Editor wins' }, editor.bearer);
    expect(e.status).toBe(200);
    // The title job for this article has finished (its page answers after 1.8 s) before the check.
    const titleJob = deps.queue.queue('page-title');
    await waitFor(async () => (await titleJob.getJobs(['completed', 'failed'])).some((j) => j.data.article_id === r.body.article_id), {
      timeout: 10_000,
      interval: 50,
      what: "the article's page-title job to finish",
    });
    const rec = await http.get(`/api/v1/news/${r.body.article_id}/`, alice.bearer);
    expect(rec.body.headline).toBe('Editor wins');
    expect(rec.body.headline_source).toBe('editor');
  });

  it('refuses a second article for the same normalised URL within 30 days (409 with the existing id)', async () => {
    const first = await http.post('/api/v1/news/post', { url: 'https://news.example.org/story?id=7&utm_source=x', headline: 'Original' }, alice.bearer);
    expect(first.status).toBe(201);
    const again = await http.post('/api/v1/news/post', { url: 'https://news.example.org/story/?utm_medium=y&id=7#top', headline: 'Copy' }, bob.bearer);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('duplicate_submission');
    expect(again.body.error.details).toEqual({ article_id: first.body.article_id, status: 'submitted', headline: 'Original', submitted_at: expect.any(String) });
    // Older than 30 days: a new article is allowed.
    await deps.db
      .updateTable('articles')
      .set({ created_at: new Date(Date.now() - 31 * 86_400_000) })
      .where('id', '=', first.body.article_id)
      .execute();
    const later = await http.post('/api/v1/news/post', { url: 'https://news.example.org/story?id=7', headline: 'Second time' }, bob.bearer);
    expect(later.status).toBe(201);
  });

  it('creates exactly one article when the same URL is submitted concurrently', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => sessionFor(deps.db, deps.config.JWT_SECRET)));
    const results = await Promise.all(users.map((u, i) => http.post('/api/v1/news/post', { url: 'https://race.example/one', headline: `Racer ${i}` }, u.bearer)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    const n = await deps.db
      .selectFrom('articles')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('normalized_url', '=', 'https://race.example/one')
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(1);
  });

  it('validates the body: url required, http(s) only, length-limited; headline length; unknown fields', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.url'],
      [{ url: 'ftp://example.com/x' }, 'body.url'],
      [{ url: 'javascript:alert(1)' }, 'body.url'],
      [{ url: 'not a url' }, 'body.url'],
      [{ url: `https://example.com/${'a'.repeat(2100)}` }, 'body.url'],
      [{ url: 42 }, 'body.url'],
      [{ url: 'https://example.com/ok', headline: '   ' }, 'body.headline'],
      [{ url: 'https://example.com/ok', headline: 'x'.repeat(301) }, 'body.headline'],
      [{ url: 'https://example.com/ok', source: 'me' }, 'body.source'],
    ];
    for (const [body, path] of cases) {
      const r = await http.post('/api/v1/news/post', body, alice.bearer);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(path);
    }
  });

  it('refuses a URL with user:password@ credentials (400, field code url_credentials), and a wrong type names what came', async () => {
    for (const url of ['https://user:secret@example.com/story', 'https://user@example.com/story', 'http://:pw@example.com/']) {
      const r = await http.post('/api/v1/news/post', { url, headline: 'Credentials in a URL' }, alice.bearer);
      expect(r.status, url).toBe(400);
      expect(r.body.error.details.fields, url).toEqual([{ path: 'body.url', code: 'url_credentials', message: expect.stringContaining('user name or password') }]);
    }
    const typed = await http.post('/api/v1/news/post', { url: 42, headline: 123 }, alice.bearer);
    expect(typed.body.error.details.fields).toEqual([
      { path: 'body.url', code: 'invalid_type', message: 'expected string, got number' },
      { path: 'body.headline', code: 'invalid_type', message: 'expected string, got number' },
    ]);
  });

  it('needs credentials, and cookie sessions need the trusted Origin', async () => {
    const anon = await http.post('/api/v1/news/post', { url: 'https://example.com/anon', headline: 'x' });
    expect(anon.status).toBe(401);
    const noOrigin = await http.post('/api/v1/news/post', { url: 'https://example.com/csrf', headline: 'x' }, { cookie: `access_token=${alice.token}` });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.error.code).toBe('csrf_origin_mismatch');
    const ok = await http.post('/api/v1/news/post', { url: 'https://example.com/csrf', headline: 'x' }, alice.cookie(ORIGIN));
    expect(ok.status).toBe(201);
  });
});

describe('GET /news/check', () => {
  it('matches the exact URL only; signed-in callers see the submitter', async () => {
    const url = 'https://check.example/path/item?a=1';
    const s = await http.post('/api/v1/news/post', { url, headline: 'Checked story' }, alice.bearer);
    const anon = await http.get(`/api/v1/news/check?url=${encodeURIComponent(url)}`);
    expect(anon.status).toBe(200);
    expect(anon.body).toEqual({ exists: true, article_id: s.body.article_id, status: 'submitted', headline: 'Checked story', submitted_at: expect.stringMatching(/Z$/) });
    const authed = await http.get(`/api/v1/news/check?url=${encodeURIComponent(url)}`, bob.bearer);
    expect(authed.body.submitted_by).toEqual({ id: alice.userId, username: 'alice', ethereum_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
    expect(authed.body.submitted_by.ethereum_address.toLowerCase()).toBe(alice.address);
    for (const variant of [`${url}&utm_source=x`, 'https://check.example/path/item/?a=1', 'https://check.example/path/item?a=2', 'https://check.example/path/item']) {
      const r = await http.get(`/api/v1/news/check?url=${encodeURIComponent(variant)}`);
      expect(r.body, variant).toEqual({ exists: false });
    }
  });

  it('400 without url or with unknown parameters', async () => {
    const r = await http.get('/api/v1/news/check');
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields[0].path).toBe('query.url');
    const u = await http.get('/api/v1/news/check?url=x&foo=1');
    expect(u.status).toBe(400);
    expect(u.body.error.details.fields[0].path).toBe('query.foo');
  });
});
