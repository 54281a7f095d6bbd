/**
 * GET /api/v1/events/: the durable pull endpoint over the event log. Events are produced through
 * the real API (submit, approve, kill, edit); the assertions compare what callers get with the
 * event_log rows themselves.
 */
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createRedis } from '../../src/platform/redis.js';
import { oldestEventId, pruneEvents, prunedThrough } from '../../src/platform/events/log.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import request from '../support/request.js';
import { quietFor } from '../support/wait.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let relay: RunningRelay;
let user: Session;
let editor: Session;
let staff: Session;
let staffKey: string;
let editorKey: string;
let plainKey: string;

interface Ev {
  type: string;
  id: number;
  event_id: number;
  [k: string]: unknown;
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

async function createKey(headers: Record<string, string> = {}): Promise<string> {
  const r = await http.post('/api-key/signup/', new URLSearchParams({ name: 'events' }).toString(), { ...form, ...headers });
  expect(r.status).toBe(201);
  return /id="raw-key">([^<]+)</.exec(r.text)![1];
}

let n = 0;
async function submit(headline: string): Promise<number> {
  const r = await http.post('/api/v1/news/post', { url: `https://events.example/${++n}-${Date.now()}`, headline }, user.bearer);
  expect(r.status).toBe(201);
  return r.body.article_id;
}

async function act(id: number, action: 'approve' | 'kill'): Promise<void> {
  const r = await http.post(`/api/v1/news/${id}/${action}`, undefined, editor.bearer);
  expect(r.status).toBe(200);
}

const get = (query: string, headers?: Record<string, string>) => http.get(`/api/v1/events/${query}`, headers);

/** The client-visible rows of the log after `after`, as stored. */
async function logRows(after: number, visibilities: string[]) {
  const r = await sql<{ event_id: string; type: string; payload: string }>`
    SELECT event_id, type, payload::text AS payload FROM event_log
    WHERE event_id > ${after} AND visibility = ANY(${visibilities}::text[]) ORDER BY event_id`.execute(deps.db);
  return r.rows.map((x) => ({ event_id: Number(x.event_id), type: x.type, payload: JSON.parse(x.payload) }));
}

async function maxEventId(): Promise<number> {
  const r = await sql<{ id: string | null }>`SELECT max(event_id) AS id FROM event_log`.execute(deps.db);
  return Number(r.rows[0].id ?? 0);
}

/** Every page from `after` with `limit`, following next_after while has_more. */
async function readAll(after: number, limit: number, headers?: Record<string, string>, extra = '') {
  const pages: { results: Ev[]; next_after: number | null; has_more: boolean }[] = [];
  for (;;) {
    const r = await get(`?after=${after}&limit=${limit}${extra}`, headers);
    expect(r.status).toBe(200);
    pages.push(r.body);
    if (!r.body.has_more) return pages;
    after = r.body.next_after;
  }
}

// The scenario of most tests: recorded in beforeAll, after `start`.
let start: number;
let a: number;
let b: number;
let c: number;

beforeAll(async () => {
  deps = await createTestDeps();
  relay = await startRelay(deps);
  http = request(createApp(deps));
  const secret = deps.config.JWT_SECRET;
  user = await sessionFor(deps.db, secret, { username: 'writer' });
  editor = await sessionFor(deps.db, secret, { roles: ['editor'], username: 'ed' });
  staff = await sessionFor(deps.db, secret, { roles: ['staff'] });
  staffKey = await createKey(staff.cookie(deps.config.TRUSTED_ORIGIN));
  editorKey = await createKey(editor.cookie(deps.config.TRUSTED_ORIGIN));
  plainKey = await createKey();
  start = await maxEventId();
  a = await submit('Alpha story');
  await act(a, 'approve');
  b = await submit('Bravo story');
  await act(b, 'kill');
  // An internal event (article.edited): in the log, never shown.
  const e = await http.request('PATCH', `/api/v1/news/${a}/`, { headline: 'Alpha story, edited' }, editor.bearer);
  expect(e.status).toBe(200);
  c = await submit('Charlie story');
  await act(c, 'approve');
}, 60_000);

afterAll(async () => {
  await relay?.close();
  await http?.close();
  await deps?.close();
});

describe('GET /api/v1/events/: contents and order', () => {
  it('staff session: every client-visible event, ascending, exactly the stored payload with event_id equal to the row id', async () => {
    const r = await get(`?after=${start}`, staff.bearer);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const results: Ev[] = r.body.results;
    expect(results.map((x) => [x.type, x.id])).toEqual([
      ['news.submitted', a],
      ['news.approved', a],
      ['news.submitted', b],
      ['news.killed', b],
      ['news.submitted', c],
      ['news.approved', c],
    ]);
    const rows = await logRows(start, ['public', 'staff']);
    expect(results.map((x) => x.event_id)).toEqual(rows.map((x) => x.event_id));
    expect(results).toEqual(rows.map((x) => x.payload));
    for (let i = 1; i < results.length; i++) expect(results[i].event_id).toBeGreaterThan(results[i - 1].event_id);
    expect(results[1]).toMatchObject({ status: 'approved', previous_status: 'submitted', headline: 'Alpha story', sponsored: null });
    expect(r.body.next_after).toBe(results[results.length - 1].event_id);
    expect(r.body.has_more).toBe(false);
  });

  it('internal events are in the log but never returned', async () => {
    const internal = await sql<{ n: number }>`SELECT count(*)::int AS n FROM event_log WHERE event_id > ${start} AND visibility = 'internal'`.execute(deps.db);
    expect(internal.rows[0].n).toBeGreaterThan(0);
    const r = await get(`?after=${start}&limit=500`, staff.bearer);
    expect(r.body.results.every((x: Ev) => x.type.startsWith('news.'))).toBe(true);
  });

  it('the staff cookie works like the staff bearer token', async () => {
    const cookie = await get(`?after=${start}`, { cookie: `access_token=${staff.token}` });
    const bearer = await get(`?after=${start}`, staff.bearer);
    expect(cookie.status).toBe(200);
    expect(cookie.body).toEqual(bearer.body);
  });

  it('an editor session reads what the stream gives it: the staff-only events too (cookie and bearer)', async () => {
    const rows = await logRows(start, ['public', 'staff']);
    expect(rows.some((x) => x.type === 'news.submitted')).toBe(true);
    for (const headers of [editor.bearer, { cookie: `access_token=${editor.token}` }]) {
      const r = await get(`?after=${start}`, headers);
      expect(r.status).toBe(200);
      expect(r.body.results).toEqual(rows.map((x) => x.payload));
    }
  });

  it('anonymous callers, signed-in callers without a role and API keys (even one linked to a staff or editor account) get public events only', async () => {
    const publicRows = await logRows(start, ['public']);
    expect(publicRows.map((x) => [x.type, x.payload.id])).toEqual([
      ['news.approved', a],
      ['news.approved', c],
    ]);
    const callers: [string, Record<string, string> | undefined][] = [
      ['anonymous', undefined],
      ['signed-in user', user.bearer],
      ['unlinked API key', { authorization: `Bearer ${plainKey}` }],
      ['API key of a staff account', { authorization: `Bearer ${staffKey}` }],
      ['API key of an editor account', { authorization: `Bearer ${editorKey}` }],
    ];
    for (const [who, headers] of callers) {
      const r = await get(`?after=${start}`, headers);
      expect(r.status, who).toBe(200);
      expect(r.body.results, who).toEqual(publicRows.map((x) => x.payload));
      expect(r.body.next_after, who).toBe(publicRows[1].event_id);
    }
  });

  it('a token that claims staff after the role was revoked in the database gets public events only', async () => {
    const former = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['staff'] });
    await deps.db.updateTable('users').set({ roles: [] }).where('id', '=', former.userId).execute();
    const r = await get(`?after=${start}`, former.bearer);
    expect(r.body.results.map((x: Ev) => x.type)).toEqual(['news.approved', 'news.approved']);
  });
});

describe('paging', () => {
  it('limit/next_after/has_more walk the log without gaps or repeats', async () => {
    const all = (await get(`?after=${start}`, staff.bearer)).body.results as Ev[];
    expect(all).toHaveLength(6);
    for (const limit of [1, 2, 4, 5, 6]) {
      const pages = await readAll(start, limit, staff.bearer);
      expect(pages.flatMap((p) => p.results)).toEqual(all);
      for (const p of pages) {
        expect(p.results.length).toBeLessThanOrEqual(limit);
        if (p.results.length) expect(p.next_after).toBe(p.results[p.results.length - 1].event_id);
      }
      // A last page that is exactly full says has_more false: no empty extra round trip.
      expect(pages).toHaveLength(Math.ceil(6 / limit));
    }
    const first = (await get(`?after=${start}&limit=2`, staff.bearer)).body;
    expect(first).toMatchObject({ has_more: true, next_after: all[1].event_id });
  });

  it('nothing new: empty results, next_after null, has_more false (poll again with the same after)', async () => {
    const last = await maxEventId();
    const r = await get(`?after=${last}`, staff.bearer);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ results: [], next_after: null, has_more: false });
    // A new event shows up at the same cursor.
    const d = await submit('Delta story');
    const again = await get(`?after=${last}`, staff.bearer);
    expect(again.body.results.map((x: Ev) => [x.type, x.id])).toEqual([['news.submitted', d]]);
    expect(again.body.next_after).toBe(again.body.results[0].event_id);
  });

  it('defaults: after=0 reads from the oldest event, limit 100', async () => {
    const r = await get('', staff.bearer);
    expect(r.status).toBe(200);
    const rows = await logRows(0, ['public', 'staff']);
    expect(r.body.results.map((x: Ev) => x.event_id)).toEqual(rows.slice(0, 100).map((x) => x.event_id));
    expect(r.body.has_more).toBe(rows.length > 100);
  });
});

describe('types filter', () => {
  it('returns only the named types, ascending; has_more and next_after count only matching events', async () => {
    const approved = await get(`?after=${start}&types=news.approved`, staff.bearer);
    expect(approved.body.results.map((x: Ev) => [x.type, x.id])).toEqual([
      ['news.approved', a],
      ['news.approved', c],
    ]);
    const two = await get(`?after=${start}&types=news.killed,news.approved&limit=2`, staff.bearer);
    expect(two.body.results.map((x: Ev) => [x.type, x.id])).toEqual([
      ['news.approved', a],
      ['news.killed', b],
    ]);
    expect(two.body.has_more).toBe(true);
    const rest = await get(`?after=${two.body.next_after}&types=news.killed,news.approved&limit=2`, staff.bearer);
    expect(rest.body.results.map((x: Ev) => [x.type, x.id])).toEqual([['news.approved', c]]);
    expect(rest.body.has_more).toBe(false);
  });

  it('staff-only types asked for by a non-staff caller are silently left out', async () => {
    const only = await get(`?after=${start}&types=news.killed,news.submitted`);
    expect(only.status).toBe(200);
    expect(only.body).toEqual({ results: [], next_after: null, has_more: false });
    const mixed = await get(`?after=${start}&types=news.killed,news.approved`, { authorization: `Bearer ${staffKey}` });
    expect(mixed.body.results.map((x: Ev) => [x.type, x.id])).toEqual([
      ['news.approved', a],
      ['news.approved', c],
    ]);
  });
});

describe('validation', () => {
  it.each([
    ['after=-1', 'query.after'],
    ['after=1.5', 'query.after'],
    ['after=abc', 'query.after'],
    ['after=', 'query.after'],
    ['after=99999999999999999999', 'query.after'],
    ['after=1&after=2', 'query.after'],
    ['limit=0', 'query.limit'],
    ['limit=501', 'query.limit'],
    ['limit=ten', 'query.limit'],
    ['types=news.bogus', 'query.types'],
    ['types=news.approved,nope', 'query.types'],
    ['types=', 'query.types'],
    ['types=article.edited', 'query.types'],
    ['since=5', 'query.since'],
  ])('%s -> 400 naming %s', async (qs, path) => {
    const r = await get(`?${qs}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.message).toContain(path);
    expect(new Set(r.body.error.details.fields.map((f: { path: string }) => f.path))).toEqual(new Set([path]));
  });

  it('an unknown type is named in the message', async () => {
    const r = await get('?types=news.approved,news.bogus');
    expect(r.body.error.details.fields[0].message).toContain('"news.bogus"');
  });

  it('limit=500 and after at the top of the range are accepted', async () => {
    expect((await get('?limit=500')).status).toBe(200);
    expect((await get(`?after=${Number.MAX_SAFE_INTEGER}`)).body).toEqual({ results: [], next_after: null, has_more: false });
  });
});

describe('without Redis', () => {
  it('answers from PostgreSQL while Redis is unreachable (the daily quota lets it through uncounted)', async () => {
    // A Redis URL nobody listens on: every command fails.
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const dead = createRedis(`redis://127.0.0.1:${port}`, 'command', 'dead');
    const noRedis = { ...deps, redis: dead };
    const expected = await logRows(start, ['public', 'staff']);
    const app = request(createApp(noRedis));
    try {
      await expect(dead.ping()).rejects.toThrow();
      const anon = await app.get(`/api/v1/events/?after=${start}`);
      expect(anon.status).toBe(200);
      expect(anon.body.results.map((x: Ev) => x.type)).toEqual(['news.approved', 'news.approved']);
      const asStaff = await app.get(`/api/v1/events/?after=${start}`, staff.bearer);
      expect(asStaff.status).toBe(200);
      expect(asStaff.body.results).toEqual(expected.map((x) => x.payload));
      // Other metered routes still refuse while the quota cannot be counted.
      expect((await app.get('/api/v1/news/')).status).toBe(503);
    } finally {
      await app.close();
      dead.disconnect();
    }
  });
});

describe('OpenAPI', () => {
  it('documents the endpoint, its parameters, the 410 and events_expired', async () => {
    const doc = (await http.get('/api/v1/openapi.json')).body;
    const op = doc.paths['/api/v1/events/'].get;
    expect(op.operationId).toBe('listEvents');
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['after', 'asset', 'limit', 'types']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '410', '429']));
    expect(op.description).toContain('EVENT_LOG_RETENTION_DAYS');
    expect(op.description).toContain('at-least-once');
    expect(doc.info.description).toContain('`events_expired`');
  });
});

// Last: it deletes events.
describe('retention', () => {
  it('a cursor behind pruned_through is 410 events_expired with the oldest retained id; after=0 and after >= pruned_through still work', async () => {
    const old = await submit('Old story');
    await act(old, 'approve');
    await relayed(deps);
    const t = await sql<{ t: Date }>`SELECT max(recorded_at) AS t FROM event_log`.execute(deps.db);
    // The clock moves past the cutoff (recorded_at has millisecond resolution) before the fresh event is recorded.
    await quietFor(50);
    const fresh = await submit('Fresh story');
    await relayed(deps);
    // Retention with its cutoff just after the old events: they go, the fresh one stays.
    expect(await pruneEvents(deps.db, new Date(t.rows[0].t.getTime() + 1), 10_000)).toBeGreaterThan(0);
    const through = await prunedThrough(deps.db);
    const oldest = await oldestEventId(deps.db);
    expect(oldest).not.toBeNull();
    expect(oldest!).toBeGreaterThan(through);

    for (const [after, headers] of [
      [through - 1, staff.bearer],
      [1, undefined],
      [through - 1, { authorization: `Bearer ${plainKey}` }],
    ] as const) {
      const r = await get(`?after=${after}`, headers);
      expect(r.status).toBe(410);
      expect(r.body.error.code).toBe('events_expired');
      expect(r.body.error.message).toContain('GET /api/v1/news/');
      expect(r.body.error.message).toContain('after=0');
      expect(r.body.error.details).toEqual({ oldest_event_id: oldest, pruned_through: through });
    }

    for (const after of [0, through]) {
      const r = await get(`?after=${after}`, staff.bearer);
      expect(r.status).toBe(200);
      expect(r.body.results.map((x: Ev) => [x.type, x.id])).toEqual([['news.submitted', fresh]]);
      expect(r.body.results[0].event_id).toBe(oldest);
    }
  });
});
