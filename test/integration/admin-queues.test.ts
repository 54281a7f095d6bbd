/**
 * The staff queue dashboard (bull-board at /admin/queues): staff only, roles from the database,
 * cross-site check on its actions, a CSP that lets its own scripts run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let staff: Session;
let editor: Session;
let user: Session;
let origin: string;

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  origin = deps.config.TRUSTED_ORIGIN;
  staff = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['staff'] });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'] });
  user = await sessionFor(deps.db, deps.config.JWT_SECRET);
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

describe('queue dashboard', () => {
  it('is not reachable anonymously: page, API and static files all answer 401 in the error shape', async () => {
    for (const path of ['/admin/queues', '/admin/queues/', '/admin/queues/api/queues', '/admin/queues/static/favicon-32x32.png', '/admin/queues/queue/ping']) {
      const r = await http.get(path);
      expect(r.status, path).toBe(401);
      expect(r.body.error.code).toBe('auth_required');
      expect(r.text).not.toMatch(/bull/i);
    }
  });

  it('refuses signed-in users and editors without the staff role (403)', async () => {
    for (const s of [user, editor]) {
      const r = await http.get('/admin/queues/api/queues', s.bearer);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('staff_required');
    }
  });

  it('serves the dashboard to staff with a CSP that allows its own scripts and nothing foreign', async () => {
    const page = await http.get('/admin/queues', staff.cookie(origin));
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
    const js = await http.get(`/admin/queues/${script}`, staff.cookie(origin));
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
  });

  it('lists every job queue with its counts for staff', async () => {
    await deps.queue.enqueue('ping', { token: 'visible-on-the-board' }, { delayMs: 60_000 });
    const r = await http.get('/admin/queues/api/queues', staff.bearer);
    expect(r.status).toBe(200);
    const names = r.body.queues.map((q: { name: string }) => q.name);
    expect(names).toEqual(expect.arrayContaining(['ping', 'page-title', 'provenance-check', 'monthly-distribution']));
    const ping = r.body.queues.find((q: { name: string }) => q.name === 'ping');
    expect(ping.counts.delayed).toBe(1);
  });

  it('applies the cross-site check to cookie-authenticated actions', async () => {
    const foreign = await http.put('/admin/queues/api/queues/ping/pause', undefined, { cookie: `access_token=${staff.token}`, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe('csrf_origin_mismatch');
    expect(await deps.queue.queue('ping').isPaused()).toBe(false);

    const own = await http.put('/admin/queues/api/queues/ping/pause', undefined, staff.cookie(origin));
    expect(own.status).toBe(200);
    expect(await deps.queue.queue('ping').isPaused()).toBe(true);
    const resumed = await http.put('/admin/queues/api/queues/ping/resume', undefined, staff.bearer);
    expect(resumed.status).toBe(200);
    expect(await deps.queue.queue('ping').isPaused()).toBe(false);
  });

  it('reads the role from the database: revoking staff locks out a token that still says staff', async () => {
    const s = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['staff'] });
    expect((await http.get('/admin/queues/api/queues', s.bearer)).status).toBe(200);
    await deps.db.updateTable('users').set({ roles: [] }).where('id', '=', s.userId).execute();
    const r = await http.get('/admin/queues/api/queues', s.bearer);
    expect(r.status).toBe(403);
  });

  it('refuses API keys, even one linked to a staff account', async () => {
    const key = generateApiKey();
    await insertApiKey(deps.db, { id: generateKeyId(), ...key, name: 'ops', email: null, useCase: null, userId: staff.userId, tier: 'enterprise' });
    const r = await http.get('/admin/queues/api/queues', { authorization: `Bearer ${key.raw}` });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('session_required');
  });

  it('unknown dashboard API paths are 404 in the error shape, for staff', async () => {
    const r = await http.get('/admin/queues/api/nope', staff.bearer);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });
});
