/**
 * GET /api/v1/assets/<id>/ is a conditional GET (src/platform/http/conditional.ts): a strong ETag
 * of the body, 304 with no body for a matching If-None-Match, and a new ETag once the asset changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let staff: Session;

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  staff = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['staff'] });
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

describe('asset page validators', () => {
  it('answers with an ETag; If-None-Match of it is 304 with no body; a changed asset has a new ETag', async () => {
    const first = await http.get('/api/v1/assets/usd-coin/');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toContain('must-revalidate');

    const again = await http.get('/api/v1/assets/usd-coin/', { 'if-none-match': etag! });
    expect([again.status, again.text]).toEqual([304, '']);
    expect(again.headers.get('etag')).toBe(etag);

    const other = await http.get('/api/v1/assets/usd-coin/', { 'if-none-match': '"not-this-one"' });
    expect([other.status, other.body.id, other.headers.get('etag')]).toEqual([200, 'usd-coin', etag]);

    const patched = await http.request('PATCH', '/api/v1/assets/usd-coin/', { aliases: ['Circle Dollar'] }, staff.bearer);
    expect(patched.status).toBe(200);
    const changed = await http.get('/api/v1/assets/usd-coin/', { 'if-none-match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.body.aliases).toContain('Circle Dollar');
    const next = changed.headers.get('etag');
    expect(next).toMatch(/^"[^"]+"$/);
    expect(next).not.toBe(etag);
    expect((await http.get('/api/v1/assets/usd-coin/', { 'if-none-match': next! })).status).toBe(304);
  });
});
