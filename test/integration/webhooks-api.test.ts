/**
 * The webhook endpoints API (/api/v1/webhooks/) against real PostgreSQL and Redis: who may call,
 * ownership (another caller's endpoint is 404), per-tier caps, validation naming the field, the
 * secret shown once and stored encrypted, PATCH/DELETE, rotation, test deliveries and redelivery
 * rules. Sending itself is in webhooks-delivery.test.ts.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, generateKeyId, type Tier } from '../../src/identity/api-keys.js';
import { createApp } from '../../src/app.js';
import { WEBHOOK_ENDPOINT_CAPS } from '../../src/webhooks/rules/caps.js';
import { publicEventTypes } from '../../src/platform/events/events.js';
import { insertApiKey, revokeApiKey } from '../../src/identity/api-key-queries.js';
import { decryptSecret, DEV_WEBHOOK_KEY } from '../../src/webhooks/secrets.js';
import request from '../support/request.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp({ alice: {}, bob: {} });

beforeAll(async () => {
  // Alice creates many endpoints over these tests: an enterprise key on her account raises her cap.
  await apiKey('enterprise', app.alice.userId);
});

async function apiKey(tier: Tier, userId: number | null = null): Promise<{ id: string; headers: Record<string, string> }> {
  const k = generateApiKey();
  const id = generateKeyId();
  await insertApiKey(app.deps.db, { id, ...k, name: `wh-${tier}`, email: null, useCase: null, userId, tier });
  return { id, headers: { authorization: `Bearer ${k.raw}` } };
}

const create = (body: unknown, headers: Record<string, string>) => app.http.post('/api/v1/webhooks/', body, headers);
const fieldsOf = (r: { body: any }) => (r.body.error.details.fields as { path: string; code: string }[]).map((f) => f.path);

describe('authentication and ownership', () => {
  it('without credentials every operation is 401 auth_required', async () => {
    const ep = await create({ url: 'https://hooks.example/a' }, app.alice.bearer);
    expect(ep.status).toBe(201);
    const id = ep.body.id;
    const calls = [
      app.http.get('/api/v1/webhooks/'),
      app.http.post('/api/v1/webhooks/', { url: 'https://hooks.example/x' }),
      app.http.get(`/api/v1/webhooks/${id}/`),
      app.http.request('PATCH', `/api/v1/webhooks/${id}/`, { enabled: false }),
      app.http.delete(`/api/v1/webhooks/${id}/`),
      app.http.post(`/api/v1/webhooks/${id}/rotate-secret/`),
      app.http.post(`/api/v1/webhooks/${id}/test/`),
      app.http.get(`/api/v1/webhooks/${id}/deliveries/`),
      app.http.post(`/api/v1/webhooks/${id}/deliveries/1/redeliver/`),
    ];
    for (const r of await Promise.all(calls)) {
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('auth_required');
    }
    // A garbage token is 401 too, never anonymous.
    const bad = await app.http.get('/api/v1/webhooks/', { authorization: 'Bearer squid_notakey' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('api_key_invalid');
  });

  it("another caller's endpoint is 404 on every operation, exactly like a missing one", async () => {
    const ep = await create({ url: 'https://hooks.example/mine' }, app.alice.bearer);
    const id = ep.body.id;
    const t = await app.http.post(`/api/v1/webhooks/${id}/test/`, undefined, app.alice.bearer);
    expect(t.status).toBe(202);
    const did = t.body.delivery.id;
    for (const who of [app.bob.bearer, (await apiKey('enterprise')).headers]) {
      const rs = await Promise.all([
        app.http.get(`/api/v1/webhooks/${id}/`, who),
        app.http.request('PATCH', `/api/v1/webhooks/${id}/`, { enabled: false }, who),
        app.http.delete(`/api/v1/webhooks/${id}/`, undefined, who),
        app.http.post(`/api/v1/webhooks/${id}/rotate-secret/`, undefined, who),
        app.http.post(`/api/v1/webhooks/${id}/test/`, undefined, who),
        app.http.get(`/api/v1/webhooks/${id}/deliveries/`, who),
        app.http.post(`/api/v1/webhooks/${id}/deliveries/${did}/redeliver/`, undefined, who),
      ]);
      for (const r of rs) {
        expect(r.status).toBe(404);
        expect(r.body.error.code).toBe('webhook_not_found');
      }
      expect((await app.http.get('/api/v1/webhooks/', who)).body.results.map((e: { id: number }) => e.id)).not.toContain(id);
    }
    const missing = await app.http.get('/api/v1/webhooks/999999/', app.alice.bearer);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('webhook_not_found');
    // Still there for its owner.
    expect((await app.http.get(`/api/v1/webhooks/${id}/`, app.alice.bearer)).status).toBe(200);
  });

  it("an API key linked to an account manages the account's endpoints; an unlinked key owns its own", async () => {
    const carol = await app.session();
    const linked = await apiKey('free', carol.userId);
    const viaKey = await create({ url: 'https://hooks.example/carol' }, linked.headers);
    expect(viaKey.status).toBe(201);
    const listed = await app.http.get('/api/v1/webhooks/', carol.bearer);
    expect(listed.body.results.map((e: { id: number }) => e.id)).toEqual([viaKey.body.id]);

    const unlinked = await apiKey('free');
    const own = await create({ url: 'https://hooks.example/key' }, unlinked.headers);
    expect(own.status).toBe(201);
    expect((await app.http.get('/api/v1/webhooks/', unlinked.headers)).body.results.map((e: { id: number }) => e.id)).toEqual([own.body.id]);
    const row = await app.deps.db.selectFrom('webhook_endpoints').select(['user_id', 'api_key_id']).where('id', '=', own.body.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ user_id: null, api_key_id: unlinked.id });

    // A revoked key is 401 and its endpoints stop matching events (the relay's index excludes them).
    await revokeApiKey(app.deps.db, unlinked.id);
    expect((await app.http.get('/api/v1/webhooks/', unlinked.headers)).status).toBe(401);
  });

  it('cookie sessions need the trusted Origin for writes (CSRF), not for reads', async () => {
    const noOrigin = await create({ url: 'https://hooks.example/c' }, { cookie: `access_token=${app.alice.token}` });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.error.code).toBe('csrf_origin_mismatch');
    expect((await create({ url: 'https://hooks.example/c' }, app.alice.cookie(app.deps.config.TRUSTED_ORIGIN))).status).toBe(201);
    expect((await app.http.get('/api/v1/webhooks/', { cookie: `access_token=${app.alice.token}` })).status).toBe(200);
  });
});

describe('creating', () => {
  it('201 with the secret once (whsec_ + base64 of 32 bytes), defaults, Location; stored only encrypted', async () => {
    const r = await create({ url: 'https://hooks.example/new', description: '  my receiver ' }, app.alice.bearer);
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
    const got = await app.http.get(`/api/v1/webhooks/${r.body.id}/`, app.alice.bearer);
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(JSON.stringify((await app.http.get('/api/v1/webhooks/', app.alice.bearer)).body)).not.toContain(r.body.secret);
    // At rest: not the secret, nor its key bytes; decrypts with the (development) key.
    const row = await app.deps.db.selectFrom('webhook_endpoints').select('secret_enc').where('id', '=', r.body.id).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(r.body.secret.slice(6));
    expect(row.secret_enc).toMatch(/^v1:/);
    expect(decryptSecret(DEV_WEBHOOK_KEY, row.secret_enc)).toBe(r.body.secret);
    const dump = await sql<{ t: string }>`SELECT row_to_json(e)::text AS t FROM webhook_endpoints e`.execute(app.deps.db);
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
      app.alice.bearer,
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
      const r = await create(body, app.alice.bearer);
      expect(r.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(fieldsOf(r)).toEqual(paths);
    }
    const unknownKey = await create({ url: 'https://hooks.example/x', filters: { tokens: ['ETH'] } }, app.alice.bearer);
    expect(unknownKey.body.error.details.fields[0].code).toBe('unknown_field');
  });

  it('https only, and no private or loopback addresses, unless OUTBOUND_ALLOW_PRIVATE', async () => {
    const strict = request(createApp({ ...app.deps, config: { ...app.deps.config, OUTBOUND_ALLOW_PRIVATE: false } }));
    try {
      for (const url of ['http://hooks.example/x', 'https://127.0.0.1/x', 'https://10.1.2.3/x', 'https://[::1]/x', 'https://169.254.169.254/latest', 'https://localhost:8443/x']) {
        const r = await strict.post('/api/v1/webhooks/', { url }, app.alice.bearer);
        expect(r.status, url).toBe(400);
        expect(fieldsOf(r)).toEqual(['body.url']);
      }
      expect((await strict.post('/api/v1/webhooks/', { url: 'https://hooks.example/ok' }, app.alice.bearer)).status).toBe(201);
    } finally {
      await strict.close();
    }
    // This test environment allows private addresses (local receivers): plain http to loopback is fine.
    expect((await create({ url: 'http://127.0.0.1:9/x' }, app.alice.bearer)).status).toBe(201);
  });

  it("per-tier caps: unlinked free key 5, builder 50; an account 10, raised by its keys' tiers; 403 webhook_limit_reached", async () => {
    const free = await apiKey('free');
    for (let i = 0; i < WEBHOOK_ENDPOINT_CAPS.free; i++) expect((await create({ url: `https://hooks.example/free/${i}` }, free.headers)).status).toBe(201);
    const over = await create({ url: 'https://hooks.example/free/over' }, free.headers);
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'webhook_limit_reached', details: { limit: 5, count: 5 } });

    // Two requests racing for the last slot: exactly one wins (the count is taken under a lock).
    const dave = await app.session();
    for (let i = 0; i < WEBHOOK_ENDPOINT_CAPS.account - 1; i++) expect((await create({ url: `https://hooks.example/d/${i}` }, dave.bearer)).status).toBe(201);
    const race = await Promise.all([create({ url: 'https://hooks.example/d/a' }, dave.bearer), create({ url: 'https://hooks.example/d/b' }, dave.bearer)]);
    expect(race.map((r) => r.status).sort()).toEqual([201, 403]);
    expect((await app.http.get('/api/v1/webhooks/?per_page=100', dave.bearer)).body.pagination.total).toBe(10);

    // A builder key linked to the account raises its cap to 50.
    await apiKey('builder', dave.userId);
    expect((await create({ url: 'https://hooks.example/d/11' }, dave.bearer)).status).toBe(201);

    // Deleting makes room again.
    const list = await app.http.get('/api/v1/webhooks/', free.headers);
    expect((await app.http.delete(`/api/v1/webhooks/${list.body.results[0].id}/`, undefined, free.headers)).status).toBe(204);
    expect((await create({ url: 'https://hooks.example/free/again' }, free.headers)).status).toBe(201);
  });
});

describe('reading, changing, deleting', () => {
  it('lists own endpoints paged; bad paging is 400 naming the parameter', async () => {
    const erin = await app.session();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ url: `https://hooks.example/e/${i}` }, erin.bearer)).body.id);
    const p1 = await app.http.get('/api/v1/webhooks/?per_page=2', erin.bearer);
    expect(p1.body.results.map((e: { id: number }) => e.id)).toEqual(ids.slice(0, 2));
    expect(p1.body.pagination).toEqual({ page: 1, per_page: 2, total: 3, total_pages: 2, has_next: true, has_previous: false });
    const p2 = await app.http.get('/api/v1/webhooks/?per_page=2&page=2', erin.bearer);
    expect(p2.body.results.map((e: { id: number }) => e.id)).toEqual(ids.slice(2));
    for (const [q, path] of [
      ['?per_page=101', 'query.per_page'],
      ['?per_page=0', 'query.per_page'],
      ['?page=x', 'query.page'],
      ['?sort=id', 'query.sort'],
    ]) {
      const r = await app.http.get(`/api/v1/webhooks/${q}`, erin.bearer);
      expect(r.status, q).toBe(400);
      expect(fieldsOf(r)).toEqual([path]);
    }
    for (const [id, path] of [
      ['abc', 'params.id'],
      ['0', 'params.id'],
      ['99999999999', 'params.id'],
    ]) {
      const r = await app.http.get(`/api/v1/webhooks/${id}/`, erin.bearer);
      expect(r.status, id).toBe(400);
      expect(fieldsOf(r)).toEqual([path]);
    }
  });

  it('PATCH changes fields, replaces filters whole, disables (cancelling pending deliveries) and re-enables', async () => {
    const ep = (await create({ url: 'https://hooks.example/p', description: 'x', filters: { tags: ['defi'], token_symbols: ['ETH'] } }, app.alice.bearer)).body;
    const path = `/api/v1/webhooks/${ep.id}/`;
    const r1 = await app.http.request('PATCH', path, { description: null, filters: { token_symbols: ['btc'] }, event_types: ['news.sponsored'] }, app.alice.bearer);
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({
      description: null,
      filters: { tags: null, token_addresses: null, token_symbols: ['BTC'] },
      event_types: ['news.sponsored'],
      url: 'https://hooks.example/p',
    });
    expect((await app.http.request('PATCH', path, { filters: null }, app.alice.bearer)).body.filters).toEqual({ tags: null, token_addresses: null, token_symbols: null });

    const t = await app.http.post(`${path}test/`, undefined, app.alice.bearer);
    expect(t.body.delivery.state).toBe('pending');
    const off = await app.http.request('PATCH', path, { enabled: false }, app.alice.bearer);
    expect(off.body).toMatchObject({ enabled: false, disabled_reason: 'disabled by its owner' });
    expect(off.body.disabled_at).not.toBeNull();
    const ds = await app.http.get(`${path}deliveries/`, app.alice.bearer);
    expect(ds.body.results[0]).toMatchObject({ id: t.body.delivery.id, state: 'cancelled', next_attempt_at: null });
    const test = await app.http.post(`${path}test/`, undefined, app.alice.bearer);
    expect(test.status).toBe(409);
    expect(test.body.error.code).toBe('webhook_disabled');
    const redo = await app.http.post(`${path}deliveries/${t.body.delivery.id}/redeliver/`, undefined, app.alice.bearer);
    expect(redo.status).toBe(409);
    expect(redo.body.error.code).toBe('webhook_disabled');

    const on = await app.http.request('PATCH', path, { enabled: true }, app.alice.bearer);
    expect(on.body).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });

    for (const [body, fields] of [
      [{}, ['body']],
      [{ enabled: 'yes' }, ['body.enabled']],
      [{ url: 'ftp://x.example/' }, ['body.url']],
      [{ filters: { colour: ['red'] } }, ['body.filters.colour']],
      // An unknown field, and (nothing known left) "give at least one field".
      [{ id: 5 }, ['body.id', 'body']],
    ] as const) {
      const r = await app.http.request('PATCH', path, body, app.alice.bearer);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(r)).toEqual(fields);
    }
  });

  it('DELETE removes the endpoint and its deliveries; then 404', async () => {
    const ep = (await create({ url: 'https://hooks.example/del' }, app.alice.bearer)).body;
    await app.http.post(`/api/v1/webhooks/${ep.id}/test/`, undefined, app.alice.bearer);
    const d = await app.http.delete(`/api/v1/webhooks/${ep.id}/`, undefined, app.alice.bearer);
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expect((await app.http.get(`/api/v1/webhooks/${ep.id}/`, app.alice.bearer)).status).toBe(404);
    expect((await app.http.delete(`/api/v1/webhooks/${ep.id}/`, undefined, app.alice.bearer)).status).toBe(404);
    const left = await app.deps.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', ep.id).execute();
    expect(left).toEqual([]);
  });

  it('rotate-secret: a new secret once; the old one stays valid for 24 h', async () => {
    const ep = (await create({ url: 'https://hooks.example/rot' }, app.alice.bearer)).body;
    const r = await app.http.post(`/api/v1/webhooks/${ep.id}/rotate-secret/`, undefined, app.alice.bearer);
    expect(r.status).toBe(200);
    expect(r.body.secret).toMatch(/^whsec_/);
    expect(r.body.secret).not.toBe(ep.secret);
    const hours = (Date.parse(r.body.previous_secret_expires_at) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const got = (await app.http.get(`/api/v1/webhooks/${ep.id}/`, app.alice.bearer)).body;
    expect(got.previous_secret_expires_at).toBe(r.body.previous_secret_expires_at);
    expect(got.secret_rotated_at).not.toBeNull();
    const row = await app.deps.db.selectFrom('webhook_endpoints').select(['secret_enc', 'previous_secret_enc']).where('id', '=', ep.id).executeTakeFirstOrThrow();
    expect(decryptSecret(DEV_WEBHOOK_KEY, row.secret_enc)).toBe(r.body.secret);
    expect(decryptSecret(DEV_WEBHOOK_KEY, row.previous_secret_enc!)).toBe(ep.secret);
  });
});

describe('deliveries list, test and redeliver', () => {
  it('test queues a webhook.test delivery; the list pages newest first; redeliver rules', async () => {
    const ep = (await create({ url: 'https://hooks.example/t' }, app.alice.bearer)).body;
    const base = `/api/v1/webhooks/${ep.id}`;
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = await app.http.post(`${base}/test/`, undefined, app.alice.bearer);
      expect(t.status).toBe(202);
      expect(t.body.delivery).toMatchObject({ event_type: 'webhook.test', event_id: null, state: 'pending', attempts: 0, webhook_id: `msg_${t.body.delivery.id}` });
      ids.push(t.body.delivery.id);
    }
    const p1 = await app.http.get(`${base}/deliveries/?limit=2`, app.alice.bearer);
    expect(p1.body.results.map((d: { id: number }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(p1.body).toMatchObject({ has_more: true, next_before: ids[1] });
    const p2 = await app.http.get(`${base}/deliveries/?limit=2&before=${p1.body.next_before}`, app.alice.bearer);
    expect(p2.body).toMatchObject({ has_more: false, next_before: null });
    expect(p2.body.results.map((d: { id: number }) => d.id)).toEqual([ids[0]]);
    expect((await app.http.get(`${base}/deliveries/?state=succeeded`, app.alice.bearer)).body.results).toEqual([]);
    for (const [q, path] of [
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?state=lost', 'query.state'],
      ['?before=-1', 'query.before'],
    ]) {
      const r = await app.http.get(`${base}/deliveries/${q}`, app.alice.bearer);
      expect(r.status, q).toBe(400);
      expect(fieldsOf(r)).toEqual([path]);
    }

    // Pending: it has its own schedule.
    const pending = await app.http.post(`${base}/deliveries/${ids[0]}/redeliver/`, undefined, app.alice.bearer);
    expect(pending.status).toBe(409);
    expect(pending.body.error.code).toBe('webhook_delivery_pending');
    // Finished: starts over, same id (same webhook-id).
    await app.deps.db.updateTable('webhook_deliveries').set({ state: 'failed', next_attempt_at: null, attempts: 10, completed_at: new Date() }).where('id', '=', ids[0]).execute();
    const again = await app.http.post(`${base}/deliveries/${ids[0]}/redeliver/`, undefined, app.alice.bearer);
    expect(again.status).toBe(202);
    expect(again.body.delivery).toMatchObject({ id: ids[0], webhook_id: `msg_${ids[0]}`, state: 'pending', attempts: 0, completed_at: null });

    const missing = await app.http.post(`${base}/deliveries/999999/redeliver/`, undefined, app.alice.bearer);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('webhook_delivery_not_found');
    // A delivery of another of my endpoints is not found under this one.
    const other = (await create({ url: 'https://hooks.example/t2' }, app.alice.bearer)).body;
    const wrong = await app.http.post(`/api/v1/webhooks/${other.id}/deliveries/${ids[0]}/redeliver/`, undefined, app.alice.bearer);
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('webhook_delivery_not_found');
    const badId = await app.http.post(`${base}/deliveries/x1/redeliver/`, undefined, app.alice.bearer);
    expect(badId.status).toBe(400);
    expect(fieldsOf(badId)).toEqual(['params.delivery_id']);
  });

  it('a delivery whose event retention deleted cannot be redelivered (410 webhook_event_expired)', async () => {
    const ep = (await create({ url: 'https://hooks.example/exp' }, app.alice.bearer)).body;
    const d = await sql<{ id: number }>`
      INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, state, completed_at) VALUES (${ep.id}, 987654321, 'news.approved', 'failed', now()) RETURNING id`.execute(
      app.deps.db,
    );
    const r = await app.http.post(`/api/v1/webhooks/${ep.id}/deliveries/${d.rows[0].id}/redeliver/`, undefined, app.alice.bearer);
    expect(r.status).toBe(410);
    expect(r.body.error.code).toBe('webhook_event_expired');
  });
});
