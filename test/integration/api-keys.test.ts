import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/identity/api-keys.js';
import { utcDay } from '../../src/platform/http/rate-limit.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp(undefined, { API_KEY_SIGNUPS_PER_HOUR: '1000' });

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

async function createKey(fields: Record<string, string> = { name: 'Test project' }, headers: Record<string, string> = {}) {
  const r = await app.http.post('/api-key/signup/', form(fields), { ...formHeaders, ...headers });
  const raw = /id="raw-key">([^<]+)</.exec(r.text)?.[1];
  const keyId = /\/api-key\/dashboard\/(k_[A-Za-z0-9_-]+)\//.exec(r.text)?.[1];
  return { r, raw: raw!, keyId: keyId! };
}

describe('signup and dashboard', () => {
  it('serves the form', async () => {
    const r = await app.http.get('/api-key/signup/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.text).toContain('<form method="post" action="/api-key/signup/">');
  });

  it('creates a squid_ key, shows it once, stores only its hash', async () => {
    const { r, raw, keyId } = await createKey({ name: 'Alpha', email: 'a@example.com' });
    expect(r.status).toBe(201);
    expect(raw).toMatch(/^squid_[A-Za-z0-9_-]{43}$/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const row = await app.deps.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(hashApiKey(raw));
    expect(JSON.stringify(row)).not.toContain(raw);
    const dash = await app.http.get(`/api-key/dashboard/${keyId}/`);
    expect(dash.status).toBe(200);
    expect(dash.text).not.toContain(raw);
    expect(dash.text).toContain(raw.slice(-4));
    expect(dash.text).toContain('<svg');
    expect(dash.text).toMatch(/id="tier">free</);
  });

  it('re-renders the form with errors for bad input, escaping what was typed', async () => {
    const r = await app.http.post('/api-key/signup/', form({ name: '', email: 'not-an-email', use_case: '<script>alert(1)</script>' }), formHeaders);
    expect(r.status).toBe(400);
    expect(r.text).toContain('Name is required');
    expect(r.text).toContain('Email must be a valid address');
    expect(r.text).not.toContain('<script>alert(1)</script>');
    expect(r.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('escapes user text on the dashboard', async () => {
    const { keyId } = await createKey({ name: '<img src=x onerror=alert(1)>' });
    const dash = await app.http.get(`/api-key/dashboard/${keyId}/`);
    expect(dash.text).not.toContain('<img src=x');
    expect(dash.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('404s an unknown dashboard id and 400s a malformed one', async () => {
    expect((await app.http.get('/api-key/dashboard/k_AAAAAAAAAAAAAAAA/')).status).toBe(404);
    expect((await app.http.get('/api-key/dashboard/nope/')).status).toBe(400);
  });

  it('links a key created while signed in to the account', async () => {
    const s = await app.session();
    const { raw } = await createKey({ name: 'Mine' }, s.cookie(app.deps.config.TRUSTED_ORIGIN));
    const me = await app.http.get('/api/v1/wallet/me/', { authorization: `Bearer ${raw}` });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(s.userId);
  });

  it('an unlinked key cannot act for an account', async () => {
    const { raw } = await createKey();
    const me = await app.http.get('/api/v1/wallet/me/', { authorization: `Bearer ${raw}` });
    expect(me.status).toBe(403);
    expect(me.body.error.code).toBe('account_required');
  });
});

describe('using, rotating and revoking keys', () => {
  it('reports tier and usage; counts requests per UTC day', async () => {
    const { raw, keyId } = await createKey();
    const auth = { authorization: `Bearer ${raw}` };
    await app.http.get('/api/v1/api-keys/me/', auth);
    const r = await app.http.get('/api/v1/api-keys/me/', auth);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ key_id: keyId, tier: 'free', daily_quota: 1000, used_today: 2 });
    expect(r.headers.get('ratelimit-limit')).toBe('1000');
    expect(r.headers.get('ratelimit-remaining')).toBe('998');
    expect(Number(r.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const dash = await app.http.get(`/api-key/dashboard/${keyId}/`);
    expect(dash.text).toMatch(/id="usage-today">2 of 1,000 requests/);
  });

  it('rejects an unknown key', async () => {
    const r = await app.http.get('/api/v1/api-keys/me/', { authorization: 'Bearer squid_doesnotexist' });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('api_key_invalid');
  });

  it('needs a key for the key endpoints', async () => {
    const s = await app.session();
    for (const r of [await app.http.get('/api/v1/api-keys/me/'), await app.http.post('/api/v1/api-keys/rotate/', {}, s.bearer)]) {
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe('api_key_required');
    }
  });

  it('rotation keeps the id and kills the old secret', async () => {
    const { raw, keyId } = await createKey();
    const rot = await app.http.post('/api/v1/api-keys/rotate/', {}, { authorization: `Bearer ${raw}` });
    expect(rot.status).toBe(200);
    expect(rot.body.key_id).toBe(keyId);
    expect(rot.body.api_key).not.toBe(raw);
    expect((await app.http.get('/api/v1/api-keys/me/', { authorization: `Bearer ${raw}` })).status).toBe(401);
    expect((await app.http.get('/api/v1/api-keys/me/', { authorization: `Bearer ${rot.body.api_key}` })).status).toBe(200);
  });

  it('a revoked key gets 401 api_key_revoked', async () => {
    const { raw } = await createKey();
    expect((await app.http.post('/api/v1/api-keys/revoke/', {}, { authorization: `Bearer ${raw}` })).body.revoked).toBe(true);
    const r = await app.http.get('/api/v1/api-keys/me/', { authorization: `Bearer ${raw}` });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('api_key_revoked');
  });

  it('free keys stop at 1,000 requests per day, builder keys go on; enterprise is unlimited', async () => {
    const free = await createKey();
    const builder = await createKey();
    const enterprise = await createKey();
    await app.deps.db.updateTable('api_keys').set({ tier: 'builder' }).where('id', '=', builder.keyId).execute();
    await app.deps.db.updateTable('api_keys').set({ tier: 'enterprise' }).where('id', '=', enterprise.keyId).execute();
    // Bring today's counters to the brink (the same Redis counters the limiter increments).
    const day = utcDay();
    for (const k of [free, builder]) await app.deps.redis.set(`${app.deps.config.QUEUE_PREFIX}:quota:key:${k.keyId}:${day}`, '999', 'EX', 3600);
    const f1 = await app.http.get('/api/v1/api-keys/me/', { authorization: `Bearer ${free.raw}` });
    expect(f1.status).toBe(200);
    expect(f1.headers.get('ratelimit-remaining')).toBe('0');
    const f2 = await app.http.get('/api/v1/api-keys/me/', { authorization: `Bearer ${free.raw}` });
    expect(f2.status).toBe(429);
    expect(f2.body.error.code).toBe('daily_quota_exceeded');
    expect(Number(f2.headers.get('retry-after'))).toBeGreaterThan(0);
    const b = await app.http.get('/api/v1/api-keys/me/', { authorization: `Bearer ${builder.raw}` });
    expect(b.status).toBe(200);
    expect(b.headers.get('ratelimit-limit')).toBe('50000');
    const e = await app.http.get('/api/v1/api-keys/me/', { authorization: `Bearer ${enterprise.raw}` });
    expect(e.status).toBe(200);
    expect(e.headers.get('ratelimit-limit')).toBe('unlimited');
  });
});
