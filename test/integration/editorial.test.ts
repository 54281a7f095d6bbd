import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestWorkers } from '../support/workers.js';
import type { Session } from '../support/auth.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { waitFor } from '../support/wait.js';
import { useTestApp } from '../support/app.js';

let relay: RunningRelay;

const app = useTestApp({ user: { username: 'writer' }, editor: { roles: ['editor'], username: 'ed' }, staff: { roles: ['staff'] } });
let workers: Worker[];
const ORIGIN = 'http://127.0.0.1:8000';
const UNI = '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984';

beforeAll(async () => {
  relay = await startRelay(app.deps);
  workers = startTestWorkers(app.deps, ['publish-scheduled'], { concurrencyCap: 4 });
});
afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
});

let n = 0;
async function submit(headline = `Story ${++n}`): Promise<number> {
  const r = await app.http.post('/api/v1/news/post', { url: `https://editorial.example/${n}-${Date.now()}`, headline }, app.user.bearer);
  expect(r.status).toBe(201);
  return r.body.article_id;
}

async function eventsFor(id: number) {
  await relayed(app.deps);
  const entries = (await app.deps.redis.xrange(app.deps.events.streamKey, '-', '+')) as [string, string[]][];
  return entries.map(([, f]) => JSON.parse(f[1])).filter((e) => e.id === id);
}

const act = (id: number, action: string, body?: unknown, who: Session = app.editor) => app.http.post(`/api/v1/news/${id}/${action}`, body, who.bearer);

describe('editorial transitions', () => {
  it('approve: publishes, ranks in the hot feed at once, records history, emits news.approved with previous_status', async () => {
    const id = await submit('Approve me');
    const r = await act(id, 'approve');
    expect(r.status).toBe(200);
    expect(r.body.changes).toEqual({ status: { from: 'submitted', to: 'approved' } });
    expect(r.body.article).toMatchObject({ id, status: 'approved', reviewed_by: { id: app.editor.userId, username: 'ed' } });
    expect(r.body.article.published_at).toMatch(/Z$/);
    expect(r.body.article.hot_score).toBeGreaterThan(0);
    expect(r.body.article.hot_terms).toMatchObject({ votes: 0, points: 1 });
    const feed = await app.http.get('/api/v1/news/');
    expect(feed.body.results.map((a: { id: number }) => a.id)).toContain(id);
    const evs = await eventsFor(id);
    expect(evs.map((e) => e.type)).toEqual(['news.submitted', 'news.approved']);
    expect(evs[1]).toMatchObject({
      type: 'news.approved',
      id,
      status: 'approved',
      previous_status: 'submitted',
      headline: 'Approve me',
      slug: 'approve-me',
      origin: 'manual',
      sponsored: null,
    });
    expect(evs[1].date_posted).toBe(r.body.article.published_at);
  });

  it('illegal transitions are 409 with the current status', async () => {
    const id = await submit();
    await act(id, 'approve');
    for (const action of ['approve', 'kill']) {
      const r = await act(id, action);
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'illegal_transition', details: { current_status: 'approved', allowed_from: expect.any(Array) } });
    }
    const sub = await submit();
    const rr = await act(sub, 'retract');
    expect(rr.status).toBe(409);
    expect(rr.body.error.details.current_status).toBe('submitted');
  });

  it('kill emits the staff-only news.killed; a kill can be reversed by approving', async () => {
    const id = await submit('Kill me');
    const k = await act(id, 'kill');
    expect(k.status).toBe(200);
    expect(k.body.article.status).toBe('killed');
    expect((await eventsFor(id)).at(-1)).toMatchObject({ type: 'news.killed', status: 'killed', previous_status: 'submitted' });
    expect((await app.http.get('/api/v1/news/')).body.results.map((a: { id: number }) => a.id)).not.toContain(id);
    const back = await act(id, 'approve');
    expect(back.status).toBe(200);
    expect((await eventsFor(id)).at(-1)).toMatchObject({ type: 'news.approved', previous_status: 'killed' });
  });

  it('retract takes a published article out of the feed (final), emits news.retracted', async () => {
    const id = await submit('Retract me');
    await act(id, 'approve');
    const r = await act(id, 'retract');
    expect(r.status).toBe(200);
    expect(r.body.article.status).toBe('retracted');
    expect((await eventsFor(id)).at(-1)).toMatchObject({ type: 'news.retracted', status: 'retracted', previous_status: 'approved' });
    expect((await app.http.get('/api/v1/news/')).body.results.map((a: { id: number }) => a.id)).not.toContain(id);
    expect((await app.http.get(`/api/v1/news/${id}/`)).body.status).toBe('retracted');
    expect((await act(id, 'approve')).status).toBe(409);
  });

  it('schedule: validates the time, emits news.scheduled, and a delayed job publishes it at its time', async () => {
    const id = await submit('Scheduled story');
    for (const [body, code] of [
      [{}, 'body.publish_at'],
      [{ publish_at: 'tomorrow' }, 'body.publish_at'],
      [{ publish_at: '2020-01-01T00:00:00Z' }, 'body.publish_at'],
      [{ publish_at: new Date(Date.now() + 400 * 86_400_000).toISOString() }, 'body.publish_at'],
      [{ publish_at: '2030-01-01T00:00:00' }, 'body.publish_at'],
    ] as const) {
      const r = await act(id, 'schedule', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.details.fields[0].path).toBe(code);
    }
    // First scheduled far ahead, then moved to 1.5 s from now: the earlier time wins, once.
    const far = await act(id, 'schedule', { publish_at: new Date(Date.now() + 3600_000).toISOString() });
    expect(far.status).toBe(200);
    expect(far.body.article.status).toBe('scheduled');
    const at = new Date(Date.now() + 1500).toISOString();
    const near = await act(id, 'schedule', { publish_at: at });
    expect(near.body.article.scheduled_for).toBe(at);
    expect(near.body.changes).toEqual({ scheduled_for: { from: far.body.article.scheduled_for, to: at } });
    const scheduledEvents = (await eventsFor(id)).filter((e) => e.type === 'news.scheduled');
    expect(scheduledEvents[0]).toMatchObject({ status: 'scheduled', previous_status: 'submitted' });
    // Anonymous readers get the feed from a 2 s cache; keep a fresh entry cached until the job runs.
    const anonFeedIds = async () => (await app.http.get('/api/v1/news/?sort_type=hot&per_page=100')).body.results.map((a: { id: number }) => a.id);
    // The anonymous feeds read before the job had published it.
    const before: number[][] = [];
    const isPublished = async () => {
      const ids = await anonFeedIds();
      if ((await app.http.get(`/api/v1/news/${id}/`)).body.status === 'approved') return true;
      before.push(ids);
      return false;
    };
    await waitFor(isPublished, { timeout: 8000, interval: 50, what: 'the scheduled article to be published' });
    for (const ids of before) expect(ids).not.toContain(id);
    // Published: in the anonymous hot feed as soon as the relay has relayed news.approved (it retires
    // the cache), ranked by a score computed at publication.
    await relayed(app.deps);
    expect(await anonFeedIds()).toContain(id);
    const published = (await app.http.get(`/api/v1/news/${id}/`)).body;
    expect(published.hot_score).toBeGreaterThan(0);
    expect(published.hot_terms.age_hours).toBeLessThan(0.01);
    const evs = await eventsFor(id);
    expect(evs.filter((e) => e.type === 'news.approved')).toHaveLength(1);
    expect(evs.at(-1)).toMatchObject({ type: 'news.approved', previous_status: 'scheduled' });
    const hist = await app.http.get(`/api/v1/news/${id}/edits`, app.editor.bearer);
    // The schedule, then the move; the job's publication is no editor's action.
    expect(hist.body.results.map((e: { changes: Record<string, unknown> }) => Object.keys(e.changes))).toEqual([['status', 'scheduled_for'], ['scheduled_for']]);
  });

  it('non-editors get 403 (users and staff alike), anonymous 401, unknown article 404', async () => {
    const id = await submit();
    for (const s of [app.user, app.staff]) {
      const r = await act(id, 'approve', undefined, s);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('editor_required');
      expect((await app.http.request('PATCH', `/api/v1/news/${id}/`, { headline: 'x' }, s.bearer)).status).toBe(403);
    }
    expect((await app.http.post(`/api/v1/news/${id}/approve`)).status).toBe(401);
    const cookieNoOrigin = await app.http.post(`/api/v1/news/${id}/approve`, undefined, { cookie: `access_token=${app.editor.token}` });
    expect(cookieNoOrigin.status).toBe(403);
    expect((await app.http.post(`/api/v1/news/${id}/approve`, undefined, app.editor.cookie(ORIGIN))).status).toBe(200);
    const missing = await act(999999, 'kill');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('article_not_found');
  });
});

describe('PATCH /news/:id/ (edit)', () => {
  it('edits headline, tags, tokens, issuer and content type; records only real changes', async () => {
    const id = await submit('Original headline');
    const r = await app.http.request(
      'PATCH',
      `/api/v1/news/${id}/`,
      {
        headline: 'Edited   headline',
        tags: ['Governance', 'governance', 'dex'],
        token_addresses: ['0x1F9840a85d5aF5bf1D1762F925BDADdC4201F984', UNI],
        token_symbols: ['UNI', 'UNI'],
        issuer: { name: 'Uniswap Foundation', website: 'https://uniswap.example' },
        content_type: 'governance_proposal',
      },
      app.editor.bearer,
    );
    expect(r.status).toBe(200);
    expect(r.body.article).toMatchObject({
      headline: 'Edited headline',
      headline_source: 'editor',
      slug: 'edited-headline',
      tags: ['governance', 'dex'],
      token_addresses: [UNI],
      token_symbols: ['UNI'],
      issuer: { name: 'Uniswap Foundation', website: 'https://uniswap.example' },
      content_type: 'governance_proposal',
    });
    expect(r.body.changes).toEqual({
      headline: { from: 'Original headline', to: 'Edited headline' },
      tags: { from: [], to: ['governance', 'dex'] },
      token_addresses: { from: [], to: [UNI] },
      token_symbols: { from: [], to: ['UNI'] },
      issuer_name: { from: null, to: 'Uniswap Foundation' },
      issuer_website: { from: null, to: 'https://uniswap.example' },
      content_type: { from: null, to: 'governance_proposal' },
    });
    // The token filter finds it right away (signed-in callers see submitted articles).
    const f = await app.http.get(`/api/v1/news/?status=submitted&token_address=${UNI.toUpperCase().replace('0X', '0x')}`, app.user.bearer);
    expect(f.body.results.map((a: { id: number }) => a.id)).toEqual([id]);
    // A no-op edit records nothing.
    const same = await app.http.request('PATCH', `/api/v1/news/${id}/`, { headline: 'Edited headline', tags: ['governance', 'dex'] }, app.editor.bearer);
    expect(same.body.changes).toEqual({});
    // Clearing with null.
    const cleared = await app.http.request('PATCH', `/api/v1/news/${id}/`, { issuer: null, content_type: null }, app.editor.bearer);
    expect(cleared.body.changes).toEqual({
      issuer_name: { from: 'Uniswap Foundation', to: null },
      issuer_website: { from: 'https://uniswap.example', to: null },
      content_type: { from: 'governance_proposal', to: null },
    });
    const hist = await app.http.get(`/api/v1/news/${id}/edits`, app.editor.bearer);
    expect(hist.status).toBe(200);
    expect(hist.body.results).toHaveLength(2);
    expect(hist.body.results[0]).toMatchObject({ editor: { id: app.editor.userId, username: 'ed' }, changes: r.body.changes });
    const rows = await app.deps.db.selectFrom('article_edits').selectAll().where('article_id', '=', id).execute();
    expect(rows).toHaveLength(2);
  });

  it('keeps the slug of a published article when its headline changes', async () => {
    const id = await submit('Published headline');
    await act(id, 'approve');
    const r = await app.http.request('PATCH', `/api/v1/news/${id}/`, { headline: 'Corrected headline' }, app.editor.bearer);
    expect(r.body.article).toMatchObject({ headline: 'Corrected headline', slug: 'published-headline' });
  });

  it('validates every field and refuses an empty edit', async () => {
    const id = await submit();
    const cases: [unknown, string][] = [
      [{}, 'body'],
      [{ headline: '' }, 'body.headline'],
      [{ tags: ['not a slug'] }, 'body.tags.0'],
      [{ token_addresses: ['0x1234'] }, 'body.token_addresses.0'],
      [{ token_symbols: ['TOO LONG SYMBOL WITH SPACES'] }, 'body.token_symbols.0'],
      [{ issuer: { name: 'x', website: 'ftp://x' } }, 'body.issuer.website'],
      [{ issuer: { name: 'x' } }, 'body.issuer.website'],
      [{ content_type: 'Governance Proposal' }, 'body.content_type'],
      [{ status: 'approved' }, 'body.status'],
    ];
    for (const [body, path] of cases) {
      const r = await app.http.request('PATCH', `/api/v1/news/${id}/`, body, app.editor.bearer);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(
        r.body.error.details.fields.map((f: { path: string }) => f.path),
        JSON.stringify(body),
      ).toContain(path);
    }
    expect((await app.http.request('PATCH', '/api/v1/news/999999/', { headline: 'x' }, app.editor.bearer)).status).toBe(404);
    expect((await app.http.get('/api/v1/news/999999/edits', app.editor.bearer)).status).toBe(404);
    expect((await app.http.get(`/api/v1/news/${id}/edits`, app.user.bearer)).status).toBe(403);
  });
});
