/**
 * The staff queue dashboard (bull-board at /admin/queues): staff only, roles from the database,
 * cross-site check on its actions, a CSP that lets its own scripts run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { useTestApp } from '../support/app.js';

const app = useTestApp({ staff: { roles: ['staff'] }, editor: { roles: ['editor'] }, user: {} });
let origin: string;

beforeAll(async () => {
  origin = app.deps.config.TRUSTED_ORIGIN;
});

describe('queue dashboard', () => {
  it('is not reachable anonymously: page, API and static files all answer 401 in the error shape', async () => {
    for (const path of ['/admin/queues', '/admin/queues/', '/admin/queues/api/queues', '/admin/queues/static/favicon-32x32.png', '/admin/queues/queue/ping']) {
      const r = await app.http.get(path);
      expect(r.status, path).toBe(401);
      expect(r.body.error.code).toBe('auth_required');
      expect(r.text).not.toMatch(/bull/i);
    }
  });

  it('refuses signed-in users and editors without the staff role (403)', async () => {
    for (const s of [app.user, app.editor]) {
      const r = await app.http.get('/admin/queues/api/queues', s.bearer);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('staff_required');
    }
  });

  it('serves the dashboard to staff with a CSP that allows its own scripts and nothing foreign', async () => {
    const page = await app.http.get('/admin/queues', app.staff.cookie(origin));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/html/);
    expect(page.text).toContain('<base href="/admin/queues/"');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    // A script the page references loads too (same auth).
    const script = page.text.match(/src="(static\/js\/[^"]+\.js)"/)![1];
    const js = await app.http.get(`/admin/queues/${script}`, app.staff.cookie(origin));
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
  });

  it('lists every job queue with its counts for staff', async () => {
    await app.deps.queue.enqueue('ping', { token: 'visible-on-the-board' }, { delayMs: 60_000 });
    const r = await app.http.get('/admin/queues/api/queues', app.staff.bearer);
    expect(r.status).toBe(200);
    const names = r.body.queues.map((q: { name: string }) => q.name);
    expect(names).toEqual(expect.arrayContaining(['ping', 'page-title', 'provenance-check', 'monthly-distribution']));
    const ping = r.body.queues.find((q: { name: string }) => q.name === 'ping');
    expect(ping.counts.delayed).toBe(1);
  });

  it('applies the cross-site check to cookie-authenticated actions', async () => {
    const foreign = await app.http.put('/admin/queues/api/queues/ping/pause', undefined, { cookie: `access_token=${app.staff.token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('csrf_origin_mismatch');
    expect(await app.deps.queue.queue('ping').isPaused()).toBe(false);

    const own = await app.http.put('/admin/queues/api/queues/ping/pause', undefined, app.staff.cookie(origin));
    expect(own.status).toBe(200);
    expect(await app.deps.queue.queue('ping').isPaused()).toBe(true);
    const resumed = await app.http.put('/admin/queues/api/queues/ping/resume', undefined, app.staff.bearer);
    expect(resumed.status).toBe(200);
    expect(await app.deps.queue.queue('ping').isPaused()).toBe(false);
  });

  it('reads the role from the database: revoking staff locks out a token that still says staff', async () => {
    const s = await app.session({ roles: ['staff'] });
    expect((await app.http.get('/admin/queues/api/queues', s.bearer)).status).toBe(200);
    await app.deps.db.updateTable('users').set({ roles: [] }).where('id', '=', s.userId).execute();
    const r = await app.http.get('/admin/queues/api/queues', s.bearer);
    expect(r.status).toBe(403);
  });

  it('refuses API keys, even one linked to a staff account', async () => {
    const key = generateApiKey();
    await insertApiKey(app.deps.db, { id: generateKeyId(), ...key, name: 'ops', email: null, useCase: null, userId: app.staff.userId, tier: 'enterprise' });
    const r = await app.http.get('/admin/queues/api/queues', { authorization: `Bearer ${key.raw}` });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('session_required');
  });

  it('unknown dashboard API paths are 404 in the error shape, for staff', async () => {
    const r = await app.http.get('/admin/queues/api/nope', app.staff.bearer);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });
});
