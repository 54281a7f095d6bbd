import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkers } from '../support/workers.js';
import { startPageServer, type PageServer } from '../support/news-page-server.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { waitFor } from '../support/wait.js';
import { useTestApp } from '../support/app.js';

let relay: RunningRelay;

const app = useTestApp({ alice: { username: 'alice' }, bob: { username: 'bob' } }, { JOB_WAIT_MS: '1500', OUTBOUND_ALLOW_PRIVATE: 'true' });
let pages: PageServer;
let workers: Worker[];
const ORIGIN = 'http://127.0.0.1:8000';

beforeAll(async () => {
  relay = await startRelay(app.deps);
  pages = await startPageServer();
  workers = startTestWorkers(app.deps, ['page-title']);
  await Promise.all(workers.map((w) => w.waitUntilReady()));
});
afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
  await pages.close();
});

async function lastEvent() {
  await relayed(app.deps);
  const [entry] = (await app.deps.redis.xrevrange(app.deps.events.streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
  return entry ? JSON.parse(entry[1][1]) : null;
}

describe('POST /news/post', () => {
  it('creates a submitted article with the supplied headline and publishes news.submitted', async () => {
    const r = await app.http.post('/api/v1/news/post', { url: 'https://example.com/a/story-1', headline: '  Big   news  today ' }, app.alice.bearer);
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
    const row = await app.deps.db.selectFrom('articles').selectAll().where('id', '=', r.body.article_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ submitted_by: app.alice.userId, source: 'example.com', normalized_url: 'https://example.com/a/story-1' });
  });

  it('without a headline, fetches the page title (og:title) within the wait', async () => {
    const url = `${pages.base}/article?title=${encodeURIComponent('Aave & Uniswap "merge" rumours')}`;
    const r = await app.http.post('/api/v1/news/post', { url }, app.alice.bearer);
    expect(r.status).toBe(201);
    expect(r.body.headline).toBe('Aave & Uniswap "merge" rumours');
    expect(r.body.headline_source).toBe('page_title');
    expect(r.body.warnings).toEqual([]);
    // news.submitted is recorded with the article, before the page is read: it carries the headline
    // the article had then (the provisional one); the page title arrives in the record.
    const ev = await lastEvent();
    expect(ev).toMatchObject({ type: 'news.submitted', id: r.body.article_id, headline: '127.0.0.1/article', event_id: expect.any(Number) });
    expect((await app.http.get(`/api/v1/news/${r.body.article_id}/`, app.alice.bearer)).body.headline).toBe('Aave & Uniswap "merge" rumours');
  });

  it('falls back to <title> with entities decoded and whitespace folded', async () => {
    const r = await app.http.post('/api/v1/news/post', { url: `${pages.base}/plain-title` }, app.alice.bearer);
    expect(r.body.headline).toBe('Only the <title> & nothing else');
  });

  it('keeps a provisional headline with a headline_pending warning when the wait runs out, and the job fills it in later', async () => {
    const url = `${pages.base}/slow?ms=2500&title=Late+title`;
    const t0 = Date.now();
    const r = await app.http.post('/api/v1/news/post', { url }, app.alice.bearer);
    expect(Date.now() - t0).toBeLessThan(2400);
    expect(r.status).toBe(201);
    expect(r.body.headline).toBe('127.0.0.1/slow'); // provisional: host (no port) + path
    expect(r.body.headline_source).toBe('provisional');
    expect(r.body.warnings).toEqual([{ code: 'headline_pending', message: expect.stringContaining('provisional') }]);
    await expect.poll(async () => (await app.http.get(`/api/v1/news/${r.body.article_id}/`, app.alice.bearer)).body.headline, { timeout: 6000, interval: 100 }).toBe('Late title');
    const rec = await app.http.get(`/api/v1/news/${r.body.article_id}/`, app.alice.bearer);
    expect(rec.body.headline_source).toBe('page_title');
    expect(rec.body.slug).toBe('late-title');
  });

  it('warns headline_unavailable for pages without a usable title (not HTML, no title, 404)', async () => {
    for (const path of ['/text', '/no-title', '/missing']) {
      const r = await app.http.post('/api/v1/news/post', { url: `${pages.base}${path}` }, app.alice.bearer);
      expect(r.status).toBe(201);
      expect(r.body.headline_source).toBe('provisional');
      expect(r.body.warnings).toHaveLength(1);
      expect(r.body.warnings[0].code).toBe('headline_unavailable');
    }
  });

  it('an editor headline set while the title job runs is never overwritten', async () => {
    const r = await app.http.post('/api/v1/news/post', { url: `${pages.base}/slow?ms=1800&title=Page+title+late` }, app.alice.bearer);
    expect(r.body.warnings[0].code).toBe('headline_pending');
    const editor = await app.session({ roles: ['editor'] });
    const e = await app.http.request('PATCH', `/api/v1/news/${r.body.article_id}/`, { headline: 'Editor wins' }, editor.bearer);
    expect(e.status).toBe(200);
    // The title job for this article has finished (its page answers after 1.8 s) before the check.
    const titleJob = app.deps.queue.queue('page-title');
    await waitFor(async () => (await titleJob.getJobs(['completed', 'failed'])).some((j) => j.data.article_id === r.body.article_id), {
      timeout: 10_000,
      interval: 50,
      what: "the article's page-title job to finish",
    });
    const rec = await app.http.get(`/api/v1/news/${r.body.article_id}/`, app.alice.bearer);
    expect(rec.body.headline).toBe('Editor wins');
    expect(rec.body.headline_source).toBe('editor');
  });

  it('refuses a second article for the same normalised URL within 30 days (409 with the existing id)', async () => {
    const first = await app.http.post('/api/v1/news/post', { url: 'https://news.example.org/story?id=7&utm_source=x', headline: 'Original' }, app.alice.bearer);
    expect(first.status).toBe(201);
    const again = await app.http.post('/api/v1/news/post', { url: 'https://news.example.org/story/?utm_medium=y&id=7#top', headline: 'Copy' }, app.bob.bearer);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('duplicate_submission');
    expect(again.body.error.details).toEqual({ article_id: first.body.article_id, status: 'submitted', headline: 'Original', submitted_at: expect.any(String) });
    // Older than 30 days: a new article is allowed.
    await app.deps.db
      .updateTable('articles')
      .set({ created_at: new Date(Date.now() - 31 * 86_400_000) })
      .where('id', '=', first.body.article_id)
      .execute();
    const later = await app.http.post('/api/v1/news/post', { url: 'https://news.example.org/story?id=7', headline: 'Second time' }, app.bob.bearer);
    expect(later.status).toBe(201);
  });

  it('creates exactly one article when the same URL is submitted concurrently', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => app.session()));
    const results = await Promise.all(users.map((u, i) => app.http.post('/api/v1/news/post', { url: 'https://race.example/one', headline: `Racer ${i}` }, u.bearer)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(7);
    const n = await app.deps.db
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
      const r = await app.http.post('/api/v1/news/post', body, app.alice.bearer);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.details.fields.map((f: { path: string }) => f.path)).toContain(path);
    }
  });

  it('refuses a URL with user:password@ credentials (400, field code url_credentials), and a wrong type names what came', async () => {
    for (const url of ['https://user:secret@example.com/story', 'https://user@example.com/story', 'http://:pw@example.com/']) {
      const r = await app.http.post('/api/v1/news/post', { url, headline: 'Credentials in a URL' }, app.alice.bearer);
      expect(r.status, url).toBe(400);
      expect(r.body.error.details.fields, url).toEqual([{ path: 'body.url', code: 'url_credentials', message: expect.stringContaining('user name or password') }]);
    }
    const typed = await app.http.post('/api/v1/news/post', { url: 42, headline: 123 }, app.alice.bearer);
    expect(typed.body.error.details.fields).toEqual([
      { path: 'body.url', code: 'invalid_type', message: 'expected string, got number' },
      { path: 'body.headline', code: 'invalid_type', message: 'expected string, got number' },
    ]);
  });

  it('needs credentials, and cookie sessions need the trusted Origin', async () => {
    const anon = await app.http.post('/api/v1/news/post', { url: 'https://example.com/anon', headline: 'x' });
    expect(anon.status).toBe(401);
    const noOrigin = await app.http.post('/api/v1/news/post', { url: 'https://example.com/csrf', headline: 'x' }, { cookie: `access_token=${app.alice.token}` });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.error.code).toBe('csrf_origin_mismatch');
    const ok = await app.http.post('/api/v1/news/post', { url: 'https://example.com/csrf', headline: 'x' }, app.alice.cookie(ORIGIN));
    expect(ok.status).toBe(201);
  });
});

describe('GET /news/check', () => {
  it('matches the exact URL only; signed-in callers see the submitter', async () => {
    const url = 'https://check.example/path/item?a=1';
    const s = await app.http.post('/api/v1/news/post', { url, headline: 'Checked story' }, app.alice.bearer);
    const anon = await app.http.get(`/api/v1/news/check?url=${encodeURIComponent(url)}`);
    expect(anon.status).toBe(200);
    expect(anon.body).toEqual({ exists: true, article_id: s.body.article_id, status: 'submitted', headline: 'Checked story', submitted_at: expect.stringMatching(/Z$/) });
    const authed = await app.http.get(`/api/v1/news/check?url=${encodeURIComponent(url)}`, app.bob.bearer);
    expect(authed.body.submitted_by).toEqual({ id: app.alice.userId, username: 'alice', ethereum_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
    expect(authed.body.submitted_by.ethereum_address.toLowerCase()).toBe(app.alice.address);
    for (const variant of [`${url}&utm_source=x`, 'https://check.example/path/item/?a=1', 'https://check.example/path/item?a=2', 'https://check.example/path/item']) {
      const r = await app.http.get(`/api/v1/news/check?url=${encodeURIComponent(variant)}`);
      expect(r.body, variant).toEqual({ exists: false });
    }
  });

  it('400 without url or with unknown parameters', async () => {
    const r = await app.http.get('/api/v1/news/check');
    expect(r.status).toBe(400);
    expect(r.body.error.details.fields[0].path).toBe('query.url');
    const u = await app.http.get('/api/v1/news/check?url=x&foo=1');
    expect(u.status).toBe(400);
    expect(u.body.error.details.fields[0].path).toBe('query.foo');
  });
});
