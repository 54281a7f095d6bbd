/**
 * The webhook endpoints API (/api/v1/webhooks/) against real PostgreSQL and Redis: who may call,
 * ownership (another caller's endpoint is 404), per-tier caps, validation naming the field, the
 * secret shown once and stored encrypted, PATCH/DELETE, rotation, test deliveries and redelivery
 * rules. Sending itself is in webhooks-delivery.test.ts.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, generateKeyId, type Tier } from '../../src/identity/api-keys.js';
import { createApp } from '../../src/app.js';
import { WEBHOOK_ENDPOINT_CAPS } from '../../src/webhooks/rules/caps.js';
import { publicEventTypes } from '../../src/platform/events/events.js';
import { insertApiKey, revokeApiKey } from '../../src/identity/api-key-queries.js';
import { decryptSecret, DEV_WEBHOOK_KEY } from '../../src/webhooks/secrets.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let alice: Session;
let bob: Session;

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  alice = await sessionFor(deps.db, deps.config.JWT_SECRET);
  bob = await sessionFor(deps.db, deps.config.JWT_SECRET);
  // Alice creates many endpoints over these tests: an enterprise key on her account raises her cap.
  await apiKey('enterprise', alice.userId);
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

async function apiKey(tier: Tier, userId: number | null = null): Promise<{ id: string; headers: Record<string, string> }> {
  const k = generateApiKey();
  const id = generateKeyId();
  await insertApiKey(deps.db, { id, ...k, name: `wh-${tier}`, email: null, useCase: null, userId, tier });
  return { id, headers: { authorization: `Bearer ${k.raw}` } };
}

const create = (body: unknown, headers: Record<string, string>) => http.post('/api/v1/webhooks/', body, headers);
const fieldsOf = (r: { body: any }) => (r.body.error.details.fields as { path: string; code: string }[]).map((f) => f.path);

describe('authentication and ownership', () => {
  it('without credentials every operation is 401 auth_required', async () => {
    const ep = await create({ url: 'https://hooks.example/a' }, alice.bearer);
    expect(ep.status).toBe(201);
    const id = ep.body.id;
    const calls = [
      http.get('/api/v1/webhooks/'),
      http.post('/api/v1/webhooks/', { url: 'https://hooks.example/x' }),
      http.get(`/api/v1/webhooks/${id}/`),
      http.request('PATCH', `/api/v1/webhooks/${id}/`, { enabled: false }),
      http.delete(`/api/v1/webhooks/${id}/`),
      http.post(`/api/v1/webhooks/${id}/rotate-secret/`),
      http.post(`/api/v1/webhooks/${id}/test/`),
      http.get(`/api/v1/webhooks/${id}/deliveries/`),
      http.post(`/api/v1/webhooks/${id}/deliveries/1/redeliver/`),
    ];
    for (const r of await Promise.all(calls)) {
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('auth_required');
    }
    // A garbage token is 401 too, never anonymous.
    const bad = await http.get('/api/v1/webhooks/', { authorization: 'Bearer squid_notakey' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('api_key_invalid');
  });

  it("another caller's endpoint is 404 on every operation, exactly like a missing one", async () => {
    const ep = await create({ url: 'https://hooks.example/mine' }, alice.bearer);
    const id = ep.body.id;
    const t = await http.post(`/api/v1/webhooks/${id}/test/`, undefined, alice.bearer);
    expect(t.status).toBe(202);
    const did = t.body.delivery.id;
    for (const who of [bob.bearer, (await apiKey('enterprise')).headers]) {
      const rs = await Promise.all([
        http.get(`/api/v1/webhooks/${id}/`, who),
        http.request('PATCH', `/api/v1/webhooks/${id}/`, { enabled: false }, who),
        http.delete(`/api/v1/webhooks/${id}/`, undefined, who),
        http.post(`/api/v1/webhooks/${id}/rotate-secret/`, undefined, who),
        http.post(`/api/v1/webhooks/${id}/test/`, undefined, who),
        http.get(`/api/v1/webhooks/${id}/deliveries/`, who),
        http.post(`/api/v1/webhooks/${id}/deliveries/${did}/redeliver/`, undefined, who),
      ]);
      for (const r of rs) {
        expect(r.status).toBe(404);
        expect(r.body.error.code).toBe('webhook_not_found');
      }
      expect((await http.get('/api/v1/webhooks/', who)).body.results.map((e: { id: number }) => e.id)).not.toContain(id);
    }
    const missing = await http.get('/api/v1/webhooks/999999/', alice.bearer);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('webhook_not_found');
    // Still there for its owner.
    expect((await http.get(`/api/v1/webhooks/${id}/`, alice.bearer)).status).toBe(200);
  });

  it("an API key linked to an account manages the account's endpoints; an unlinked key owns its own", async () => {
    const carol = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const linked = await apiKey('free', carol.userId);
    const viaKey = await create({ url: 'https://hooks.example/carol' }, linked.headers);
    expect(viaKey.status).toBe(201);
    const listed = await http.get('/api/v1/webhooks/', carol.bearer);
    expect(listed.body.results.map((e: { id: number }) => e.id)).toEqual([viaKey.body.id]);

    const unlinked = await apiKey('free');
    const own = await create({ url: 'https://hooks.example/key' }, unlinked.headers);
    expect(own.status).toBe(201);
    expect((await http.get('/api/v1/webhooks/', unlinked.headers)).body.results.map((e: { id: number }) => e.id)).toEqual([own.body.id]);
    const row = await deps.db.selectFrom('webhook_endpoints').select(['user_id', 'api_key_id']).where('id', '=', own.body.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ user_id: null, api_key_id: unlinked.id });

    // A revoked key is 401 and its endpoints stop matching events (the relay's index excludes them).
    await revokeApiKey(deps.db, unlinked.id);
    expect((await http.get('/api/v1/webhooks/', unlinked.headers)).status).toBe(401);
  });

  it('cookie sessions need the trusted Origin for writes (CSRF), not for reads', async () => {
    const noOrigin = await create({ url: 'https://hooks.example/c' }, { cookie: `access_token=${alice.token}` });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.error.code).toBe('csrf_origin_mismatch');
    expect((await create({ url: 'https://hooks.example/c' }, alice.cookie(deps.config.TRUSTED_ORIGIN))).status).toBe(201);
    expect((await http.get('/api/v1/webhooks/', { cookie: `access_token=${alice.token}` })).status).toBe(200);
  });
});

describe('creating', () => {
  it('201 with the secret once (whsec_ + base64 of 32 bytes), defaults, Location; stored only encrypted', async () => {
    const r = await create({ url: 'https://hooks.example/new', description: '  my receiver ' }, alice.bearer);
    expect(r.status).toBe(201);
    expect(r.headers.get('location')).toBe(`/api/v1/webhooks/${r.body.id}/`);
    expect(r.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(r.body.secret.slice(6), 'base64')).toHaveLength(32);
    expect(r.body).toMatchObject({
      url: 'https://hooks.example/new',
      description: 'my receiver',
      event_types: [...publicEventTypes],
      filters: { tags: null, token_addresses: null, token_symbols: null },
      enabled: true,
      disabled_reason: null,
      failing_since: null,
    });
    const got = await http.get(`/api/v1/webhooks/${r.body.id}/`, alice.bearer);
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(JSON.stringify((await http.get('/api/v1/webhooks/', alice.bearer)).body)).not.toContain(r.body.secret);
    // At rest: not the secret, nor its key bytes; decrypts with the (development) key.
    const row = await deps.db.selectFrom('webhook_endpoints').select('secret_enc').where('id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(r.body.secret.slice(6));
    expect(row.secret_enc).toMatch(/^v1:/);
    expect(decryptSecret(DEV_WEBHOOK_KEY, row.secret_enc)).toBe(r.body.secret);
    const dump = await sql<{ t: string }>`SELECT row_to_json(e)::text AS t FROM webhook_endpoints e`.execute(deps.db);
    expect(dump.rows.map((x) => x.t).join('')).not.toContain(r.body.secret.slice(6));
  });

  it('normalises filters: tags lower-case, symbols upper-case, addresses lower-case, duplicates dropped', async () => {
    const addr = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
    const r = await create(
      {
        url: 'https://hooks.example/f',
        event_types: ['news.approved', 'news.approved'],
        filters: { tags: ['DeFi', 'defi'], token_symbols: ['eth', 'ETH'], token_addresses: [addr] },
      },
      alice.bearer,
    );
    expect(r.status).toBe(201);
    expect(r.body.event_types).toEqual(['news.approved']);
    expect(r.body.filters).toEqual({ tags: ['defi'], token_symbols: ['ETH'], token_addresses: [addr.toLowerCase()] });
  });

  it('validation errors name the field', async () => {
    const cases: [unknown, string[]][] = [
      [{}, ['body.url']],
      [{ url: 5 }, ['body.url']],
      [{ url: 'not a url' }, ['body.url']],
      [{ url: 'ftp://hooks.example/x' }, ['body.url']],
      [{ url: 'https://user:pw@hooks.example/x' }, ['body.url']],
      [{ url: 'https://hooks.example/' + 'x'.repeat(2100) }, ['body.url']],
      [{ url: 'https://hooks.example/x', event_types: ['news.killed'] }, ['body.event_types.0']],
      [{ url: 'https://hooks.example/x', event_types: [] }, ['body.event_types']],
      [{ url: 'https://hooks.example/x', event_types: 'news.approved' }, ['body.event_types']],
      [{ url: 'https://hooks.example/x', filters: { tokens: ['ETH'] } }, ['body.filters.tokens']],
      [{ url: 'https://hooks.example/x', filters: { tags: [] } }, ['body.filters.tags']],
      [{ url: 'https://hooks.example/x', filters: { tags: ['no spaces please'] } }, ['body.filters.tags.0']],
      [{ url: 'https://hooks.example/x', filters: { token_addresses: ['0x123'] } }, ['body.filters.token_addresses.0']],
      [{ url: 'https://hooks.example/x', filters: { token_symbols: ['WAY-TOO-LONG-A-SYMBOL-NAME'] } }, ['body.filters.token_symbols.0']],
      [{ url: 'https://hooks.example/x', filters: { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) } }, ['body.filters.tags']],
      [{ url: 'https://hooks.example/x', description: 'd'.repeat(501) }, ['body.description']],
      [{ url: 'https://hooks.example/x', secret: 'whsec_mine' }, ['body.secret']],
    ];
    for (const [body, paths] of cases) {
      const r = await create(body, alice.bearer);
      expect(r.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(fieldsOf(r)).toEqual(paths);
    }
    const unknownKey = await create({ url: 'https://hooks.example/x', filters: { tokens: ['ETH'] } }, alice.bearer);
    expect(unknownKey.body.error.details.fields[0].code).toBe('unknown_field');
  });

  it('https only, and no private or loopback addresses, unless OUTBOUND_ALLOW_PRIVATE', async () => {
    const strict = request(createApp({ ...deps, config: { ...deps.config, OUTBOUND_ALLOW_PRIVATE: false } }));
    try {
      for (const url of ['http://hooks.example/x', 'https://127.0.0.1/x', 'https://10.1.2.3/x', 'https://[::1]/x', 'https://169.254.169.254/latest', 'https://localhost:8443/x']) {
        const r = await strict.post('/api/v1/webhooks/', { url }, alice.bearer);
        expect(r.status, url).toBe(400);
        expect(fieldsOf(r)).toEqual(['body.url']);
      }
      expect((await strict.post('/api/v1/webhooks/', { url: 'https://hooks.example/ok' }, alice.bearer)).status).toBe(201);
    } finally {
      await strict.close();
    }
    // This test environment allows private addresses (local receivers): plain http to loopback is fine.
    expect((await create({ url: 'http://127.0.0.1:9/x' }, alice.bearer)).status).toBe(201);
  });

  it("per-tier caps: unlinked free key 5, builder 50; an account 10, raised by its keys' tiers; 403 webhook_limit_reached", async () => {
    const free = await apiKey('free');
    for (let i = 0; i < WEBHOOK_ENDPOINT_CAPS.free; i++) expect((await create({ url: `https://hooks.example/free/${i}` }, free.headers)).status).toBe(201);
    const over = await create({ url: 'https://hooks.example/free/over' }, free.headers);
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'webhook_limit_reached', details: { limit: 5, count: 5 } });

    // Two requests racing for the last slot: exactly one wins (the count is taken under a lock).
    const dave = await sessionFor(deps.db, deps.config.JWT_SECRET);
    for (let i = 0; i < WEBHOOK_ENDPOINT_CAPS.account - 1; i++) expect((await create({ url: `https://hooks.example/d/${i}` }, dave.bearer)).status).toBe(201);
    const race = await Promise.all([create({ url: 'https://hooks.example/d/a' }, dave.bearer), create({ url: 'https://hooks.example/d/b' }, dave.bearer)]);
    expect(race.map((r) => r.status).sort()).toEqual([201, 403]);
    expect((await http.get('/api/v1/webhooks/?per_page=100', dave.bearer)).body.pagination.total).toBe(10);

    // A builder key linked to the account raises its cap to 50.
    await apiKey('builder', dave.userId);
    expect((await create({ url: 'https://hooks.example/d/11' }, dave.bearer)).status).toBe(201);

    // Deleting makes room again.
    const list = await http.get('/api/v1/webhooks/', free.headers);
    expect((await http.delete(`/api/v1/webhooks/${list.body.results[0].id}/`, undefined, free.headers)).status).toBe(204);
    expect((await create({ url: 'https://hooks.example/free/again' }, free.headers)).status).toBe(201);
  });
});

describe('reading, changing, deleting', () => {
  it('lists own endpoints paged; bad paging is 400 naming the parameter', async () => {
    const erin = await sessionFor(deps.db, deps.config.JWT_SECRET);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ url: `https://hooks.example/e/${i}` }, erin.bearer)).body.id);
    const p1 = await http.get('/api/v1/webhooks/?per_page=2', erin.bearer);
    expect(p1.body.results.map((e: { id: number }) => e.id)).toEqual(ids.slice(0, 2));
    expect(p1.body.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2, has_next: true, has_previous: false });
    const p2 = await http.get('/api/v1/webhooks/?per_page=2&page=2', erin.bearer);
    expect(p2.body.results.map((e: { id: number }) => e.id)).toEqual(ids.slice(2));
    for (const [q, path] of [
      ['?per_page=101', 'query.per_page'],
      ['?per_page=0', 'query.per_page'],
      ['?page=x', 'query.page'],
      ['?sort=id', 'query.sort'],
    ]) {
      const r = await http.get(`/api/v1/webhooks/${q}`, erin.bearer);
      expect(r.status, q).toBe(400);
      expect(fieldsOf(r)).toEqual([path]);
    }
    for (const [id, path] of [
      ['abc', 'params.id'],
      ['0', 'params.id'],
      ['99999999999', 'params.id'],
    ]) {
      const r = await http.get(`/api/v1/webhooks/${id}/`, erin.bearer);
      expect(r.status, id).toBe(400);
      expect(fieldsOf(r)).toEqual([path]);
    }
  });

  it('PATCH changes fields, replaces filters whole, disables (cancelling pending deliveries) and re-enables', async () => {
    const ep = (await create({ url: 'https://hooks.example/p', description: 'x', filters: { tags: ['defi'], token_symbols: ['ETH'] } }, alice.bearer)).body;
    const path = `/api/v1/webhooks/${ep.id}/`;
    const r1 = await http.request('PATCH', path, { description: null, filters: { token_symbols: ['btc'] }, event_types: ['news.sponsored'] }, alice.bearer);
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({
      description: null,
      filters: { tags: null, token_addresses: null, token_symbols: ['BTC'] },
      event_types: ['news.sponsored'],
      url: 'https://hooks.example/p',
    });
    expect((await http.request('PATCH', path, { filters: null }, alice.bearer)).body.filters).toEqual({ tags: null, token_addresses: null, token_symbols: null });

    const t = await http.post(`${path}test/`, undefined, alice.bearer);
    expect(t.body.delivery.state).toBe('pending');
    const off = await http.request('PATCH', path, { enabled: false }, alice.bearer);
    expect(off.body).toMatchObject({ enabled: false, disabled_reason: 'disabled by its owner' });
    expect(off.body.disabled_at).not.toBeNull();
    const ds = await http.get(`${path}deliveries/`, alice.bearer);
    expect(ds.body.results[0]).toMatchObject({ id: t.body.delivery.id, state: 'cancelled', next_attempt_at: null });
    const test = await http.post(`${path}test/`, undefined, alice.bearer);
    expect(test.status).toBe(409);
    expect(test.body.error.code).toBe('webhook_disabled');
    const redo = await http.post(`${path}deliveries/${t.body.delivery.id}/redeliver/`, undefined, alice.bearer);
    expect(redo.status).toBe(409);
    expect(redo.body.error.code).toBe('webhook_disabled');

    const on = await http.request('PATCH', path, { enabled: true }, alice.bearer);
    expect(on.body).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });

    for (const [body, fields] of [
      [{}, ['body']],
      [{ enabled: 'yes' }, ['body.enabled']],
      [{ url: 'ftp://x.example/' }, ['body.url']],
      [{ filters: { colour: ['red'] } }, ['body.filters.colour']],
      // An unknown field, and (nothing known left) "give at least one field".
      [{ id: 5 }, ['body.id', 'body']],
    ] as const) {
      const r = await http.request('PATCH', path, body, alice.bearer);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(r)).toEqual(fields);
    }
  });

  it('DELETE removes the endpoint and its deliveries; then 404', async () => {
    const ep = (await create({ url: 'https://hooks.example/del' }, alice.bearer)).body;
    await http.post(`/api/v1/webhooks/${ep.id}/test/`, undefined, alice.bearer);
    const d = await http.delete(`/api/v1/webhooks/${ep.id}/`, undefined, alice.bearer);
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expect((await http.get(`/api/v1/webhooks/${ep.id}/`, alice.bearer)).status).toBe(404);
    expect((await http.delete(`/api/v1/webhooks/${ep.id}/`, undefined, alice.bearer)).status).toBe(404);
    const left = await deps.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', ep.id).execute();
    expect(left).toEqual([]);
  });

  it('rotate-secret: a new secret once; the old one stays valid for 24 h', async () => {
    const ep = (await create({ url: 'https://hooks.example/rot' }, alice.bearer)).body;
    const r = await http.post(`/api/v1/webhooks/${ep.id}/rotate-secret/`, undefined, alice.bearer);
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^whsec_/);
    expect(r.body.secret).not.toBe(ep.secret);
    const hours = (Date.parse(r.body.previous_secret_expires_at) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const got = (await http.get(`/api/v1/webhooks/${ep.id}/`, alice.bearer)).body;
    expect(got.previous_secret_expires_at).toBe(r.body.previous_secret_expires_at);
    expect(got.secret_rotated_at).not.toBeNull();
    const row = await deps.db.selectFrom('webhook_endpoints').select(['secret_enc', 'previous_secret_enc']).where('id', '=', ep.id).executeTakeFirstOrThrow();
    expect(decryptSecret(DEV_WEBHOOK_KEY, row.secret_enc)).toBe(r.body.secret);
    expect(decryptSecret(DEV_WEBHOOK_KEY, row.previous_secret_enc!)).toBe(ep.secret);
  });
});

describe('deliveries list, test and redeliver', () => {
  it('test queues a webhook.test delivery; the list pages newest first; redeliver rules', async () => {
    const ep = (await create({ url: 'https://hooks.example/t' }, alice.bearer)).body;
    const base = `/api/v1/webhooks/${ep.id}`;
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = await http.post(`${base}/test/`, undefined, alice.bearer);
      expect(t.status).toBe(202);
      expect(t.body.delivery).toMatchObject({ event_type: 'webhook.test', event_id: null, state: 'pending', attempts: 0, webhook_id: `msg_${t.body.delivery.id}` });
      ids.push(t.body.delivery.id);
    }
    const p1 = await http.get(`${base}/deliveries/?limit=2`, alice.bearer);
    expect(p1.body.results.map((d: { id: number }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(p1.body).toMatchObject({ has_more: true, next_before: ids[1] });
    const p2 = await http.get(`${base}/deliveries/?limit=2&before=${p1.body.next_before}`, alice.bearer);
    expect(p2.body).toMatchObject({ has_more: false, next_before: null });
    expect(p2.body.results.map((d: { id: number }) => d.id)).toEqual([ids[0]]);
    expect((await http.get(`${base}/deliveries/?state=succeeded`, alice.bearer)).body.results).toEqual([]);
    for (const [q, path] of [
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?state=lost', 'query.state'],
      ['?before=-1', 'query.before'],
    ]) {
      const r = await http.get(`${base}/deliveries/${q}`, alice.bearer);
      expect(r.status, q).toBe(400);
      expect(fieldsOf(r)).toEqual([path]);
    }

    // Pending: it has its own schedule.
    const pending = await http.post(`${base}/deliveries/${ids[0]}/redeliver/`, undefined, alice.bearer);
    expect(pending.status).toBe(409);
    expect(pending.body.error.code).toBe('webhook_delivery_pending');
    // Finished: starts over, same id (same webhook-id).
    await deps.db.updateTable('webhook_deliveries').set({ state: 'failed', next_attempt_at: null, attempts: 10, completed_at: new Date() }).where('id', '=', ids[0]).execute();
    const again = await http.post(`${base}/deliveries/${ids[0]}/redeliver/`, undefined, alice.bearer);
    expect(again.status).toBe(202);
    expect(again.body.delivery).toMatchObject({ id: ids[0], webhook_id: `msg_${ids[0]}`, state: 'pending', attempts: 0, completed_at: null });

    const missing = await http.post(`${base}/deliveries/999999/redeliver/`, undefined, alice.bearer);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('webhook_delivery_not_found');
    // A delivery of another of my endpoints is not found under this one.
    const other = (await create({ url: 'https://hooks.example/t2' }, alice.bearer)).body;
    const wrong = await http.post(`/api/v1/webhooks/${other.id}/deliveries/${ids[0]}/redeliver/`, undefined, alice.bearer);
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('webhook_delivery_not_found');
    const badId = await http.post(`${base}/deliveries/x1/redeliver/`, undefined, alice.bearer);
    expect(badId.status).toBe(400);
    expect(fieldsOf(badId)).toEqual(['params.delivery_id']);
  });

  it('a delivery whose event retention deleted cannot be redelivered (410 webhook_event_expired)', async () => {
    const ep = (await create({ url: 'https://hooks.example/exp' }, alice.bearer)).body;
    const d = await sql<{ id: number }>`
      INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, state, completed_at) VALUES (${ep.id}, 987654321, 'news.approved', 'failed', now()) RETURNING id`.execute(
      deps.db,
    );
    const r = await http.post(`/api/v1/webhooks/${ep.id}/deliveries/${d.rows[0].id}/redeliver/`, undefined, alice.bearer);
    expect(r.status).toBe(410);
    expect(r.body.error.code).toBe('webhook_event_expired');
  });
});
