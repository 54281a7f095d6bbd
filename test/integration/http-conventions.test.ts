import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from '../support/request.js';
import { createApp } from '../../src/app.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { defineRoute } from '../../src/platform/http/route.js';
import { z } from 'zod';
import { allRoutes } from '../../src/routes.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;

beforeAll(async () => {
  deps = await createTestDeps({ BODY_LIMIT_BYTES: '2048' });
  // A probe route that exercises validation and the 500 path alongside the real routes.
  const probe = [
    defineRoute({
      method: 'post',
      path: '/__probe/echo',
      operationId: 'probeEcho',
      summary: 'probe',
      tags: ['test'],
      query: z.strictObject({ n: z.string().regex(/^\d+$/).optional() }),
      body: z.object({ name: z.string().min(1), count: z.number().int().min(0).max(10) }),
      responses: { 200: { description: 'ok' } },
      handler(ctx, { body }) {
        ctx.body = body;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/__probe/boom',
      operationId: 'probeBoom',
      summary: 'probe',
      tags: ['test'],
      responses: { 200: { description: 'never' } },
      handler() {
        throw new Error('SELECT secret FROM users -- internal detail');
      },
    }),
  ];
  http = request(createApp(deps, [...allRoutes(deps), ...probe]));
});
afterAll(() => deps.close());

describe('HTTP conventions', () => {
  it('answers liveness and readiness', async () => {
    expect((await http.get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await http.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', postgres: 'ok', redis: 'ok' });
  });

  it('renders unknown routes as 404 in the error shape', async () => {
    const r = await http.get('/api/v1/nope');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    expect(r.body.error).toHaveProperty('message');
    expect(r.body.error).toHaveProperty('details');
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const r = await http.request('DELETE', '/healthz');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toContain('GET');
    expect(r.body.error.code).toBe('method_not_allowed');
  });

  it('rejects malformed JSON with 400 malformed_json', async () => {
    const r = await http.post('/api/v1/__probe/echo', '{"name": ', { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('malformed_json');
  });

  it('rejects an oversize body with 413', async () => {
    const r = await http.post('/api/v1/__probe/echo', { name: 'x'.repeat(5000), count: 1 });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });

  it('lists every invalid field of a request, including unknown query parameters', async () => {
    const r = await http.post('/api/v1/__probe/echo?n=x&bogus=1', { count: 11 });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    const paths = r.body.error.details.fields.map((f: { path: string }) => f.path).sort();
    expect(paths).toEqual(['body.count', 'body.name', 'query.bogus', 'query.n']);
    const name = r.body.error.details.fields.find((f: { path: string }) => f.path === 'body.name');
    expect(name.code).toBe('required');
  });

  it('says what was expected and what came for a value of the wrong type (a missing field stays "is required")', async () => {
    const fields = async (body: unknown) => (await http.post('/api/v1/__probe/echo', body)).body.error.details.fields;
    expect(await fields({ name: 42, count: 1 })).toEqual([{ path: 'body.name', code: 'invalid_type', message: 'expected string, got number' }]);
    expect(await fields({ name: 'a', count: '1' })).toEqual([{ path: 'body.count', code: 'invalid_type', message: 'expected number, got string' }]);
    expect(await fields({ name: null, count: 1 })).toEqual([{ path: 'body.name', code: 'invalid_type', message: 'expected string, got null' }]);
    expect(await fields([1, 2])).toEqual([{ path: 'body', code: 'invalid_type', message: 'expected object, got array' }]);
  });

  it('rejects a non-JSON body where JSON is expected with 415', async () => {
    const r = await http.post('/api/v1/__probe/echo', 'name=x', { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('unsupported_media_type');
  });

  it('hides internals of a 500 and carries the request id', async () => {
    const r = await http.get('/api/v1/__probe/boom', { 'x-request-id': 'req-abc-123' });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: { code: 'internal_error', message: 'internal error', details: { request_id: 'req-abc-123' } } });
    expect(JSON.stringify(r.body)).not.toContain('SELECT');
    expect(r.headers.get('x-request-id')).toBe('req-abc-123');
  });

  it('sends security headers on every response, HTML and JSON alike', async () => {
    for (const r of [await http.get('/healthz'), await http.get('/api/v1/nope'), await http.get('/api-key/signup/')]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('gives CORS headers to the trusted origin only', async () => {
    const trusted = await http.get('/healthz', { origin: deps.config.TRUSTED_ORIGIN });
    expect(trusted.headers.get('access-control-allow-origin')).toBe(deps.config.TRUSTED_ORIGIN);
    expect(trusted.headers.get('access-control-allow-credentials')).toBe('true');
    const foreign = await http.get('/healthz', { origin: 'https://evil.example' });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await http.request('OPTIONS', '/api/v1/wallet/verify/', undefined, {
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const ok = await http.request('OPTIONS', '/api/v1/wallet/verify/', undefined, {
      origin: deps.config.TRUSTED_ORIGIN,
      'access-control-request-method': 'POST',
    });
    expect(ok.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('a NUL byte that reaches the database is a 400, not a 500', async () => {
    const r = await http.get('/api/v1/users/%00/');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_value');
  });

  it('accepts valid input', async () => {
    const r = await http.post('/api/v1/__probe/echo', { name: 'a', count: 3 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ name: 'a', count: 3 });
  });
});
