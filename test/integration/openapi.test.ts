import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
});
afterAll(() => deps.close());

it('serves a valid OpenAPI 3.1 document with document version 1.4.0 and API version 1.2', async () => {
  const r = await http.get('/api/v1/openapi.json');
  expect(r.status).toBe(200);
  expect(r.body.openapi).toMatch(/^3\.1\./);
  expect(r.body.info.version).toBe('1.4.0');
  expect(r.body['x-api-version']).toBe('1.2');
  expect(r.body.info.description).toContain('API version 1.2');
  const result = await validate(structuredClone(r.body));
  expect(result.valid ? [] : result.errors).toEqual([]);
  expect(result.valid).toBe(true);
  // Paths carry the version segment; host-root routes do not.
  expect(Object.keys(r.body.paths)).toContain('/api/v1/openapi.json');
  expect(Object.keys(r.body.paths)).toContain('/readyz');
});

it('the validator rejects a broken document (the check above can fail)', async () => {
  const r = await http.get('/api/v1/openapi.json');
  const broken = structuredClone(r.body);
  broken.paths['/readyz'].get.responses = { 200: { content: 'nope' } };
  const result = await validate(broken);
  expect(result.valid).toBe(false);
});
