import { validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { errorDescriptions as allErrorCodes } from '../../src/platform/errors/codes.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { loadCheckArtefact, ResponseChecker } from '../support/openapi-check.js';
import { errorCodeStatuses } from '../support/openapi-document.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let doc: any;
beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  doc = (await http.get('/api/v1/openapi.json')).body;
});
afterAll(() => deps.close());

// First: the checks below block the event loop for seconds (validation of a large document), after
// which a kept-alive socket to the test server may have been closed under the client.
it('the server accepts integer text for integer parameters and refuses other text, as before', async () => {
  expect((await http.get('/api/v1/news/?page=2&per_page=5')).status).toBe(200);
  for (const bad of ['2.5', 'x', '', '1e3']) {
    const r = await http.get(`/api/v1/news/?page=${encodeURIComponent(bad)}`);
    expect(r.status, bad).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
  }
  expect((await http.get('/api/v1/news/0/')).status).toBe(400);
});

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
  const broken = structuredClone(doc);
  broken.paths['/readyz'].get.responses = { 200: { content: 'nope' } };
  const result = await validate(broken);
  expect(result.valid).toBe(false);
});

/** Every schema object of the document (components, parameters, bodies, responses, headers) with where it is. */
function schemasOf(d: any): { where: string; schema: any }[] {
  const out: { where: string; schema: any }[] = [];
  for (const [name, s] of Object.entries<any>(d.components?.schemas ?? {})) out.push({ where: `components.schemas.${name}`, schema: s });
  for (const [path, item] of Object.entries<any>(d.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) out.push({ where: `${at} ${p.in} parameter ${p.name}`, schema: p.schema });
      for (const [t, m] of Object.entries<any>(op.requestBody?.content ?? {})) out.push({ where: `${at} request ${t}`, schema: m.schema });
      for (const [status, r] of Object.entries<any>(op.responses ?? {})) {
        for (const [t, m] of Object.entries<any>(r.content ?? {})) out.push({ where: `${at} ${status} ${t}`, schema: m.schema });
        for (const [h, v] of Object.entries<any>(r.headers ?? {})) out.push({ where: `${at} ${status} header ${h}`, schema: v.schema });
      }
    }
  }
  return out;
}

/** Problems of one schema as JSON Schema 2020-12: the meta-schema, and no keyword outside the dialect. */
function schemaChecker(d: any): (schema: any) => string[] {
  // Strict mode refuses unknown keywords (e.g. a zod internal `def`); OpenAPI's own annotation
  // keywords and x- extensions are known.
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, strictRequired: false, validateFormats: false, logger: false });
  for (const k of ['example', 'discriminator', 'xml', 'externalDocs']) ajv.addKeyword(k);
  const rewrite = (n: any): any =>
    Array.isArray(n)
      ? n.map(rewrite)
      : n && typeof n === 'object'
        ? Object.fromEntries(
            Object.entries(n)
              .filter(([k]) => !k.startsWith('x-'))
              .map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', 'urn:squid:doc#/$defs/') : rewrite(v)]),
          )
        : n;
  ajv.addSchema({ $id: 'urn:squid:doc', $defs: rewrite(d.components?.schemas ?? {}) });
  return (schema) => {
    const problems: string[] = [];
    if (!ajv.validateSchema(schema)) problems.push(ajv.errorsText(ajv.errors));
    try {
      ajv.compile(rewrite(schema));
    } catch (err) {
      problems.push((err as Error).message);
    }
    return problems;
  };
}

it('every schema and header schema is valid JSON Schema 2020-12 (no zod internals, enum arrays)', () => {
  const all = schemasOf(doc);
  expect(all.length).toBeGreaterThan(300);
  const schemaProblems = schemaChecker(doc);
  const bad = all.flatMap(({ where, schema }) => (schema === undefined ? [`${where}: no schema`] : schemaProblems(schema).map((p) => `${where}: ${p}`)));
  expect(bad).toEqual([]);
});

it('the schema check refuses what zod internals produce (the check above can fail)', () => {
  const schemaProblems = schemaChecker(doc);
  expect(schemaProblems({ def: { type: 'string' }, type: 'string' })).not.toEqual([]);
  expect(schemaProblems({ type: 'string', enum: { hit: 'hit', miss: 'miss' } })).not.toEqual([]);
  expect(schemaProblems({ type: 'string', enum: ['hit', 'miss'] })).toEqual([]);
});

it('integer query and path parameters are typed integer with their bounds, not strings with a pattern', () => {
  const params = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).flatMap(([method, op]) => (op.parameters ?? []).map((p: any) => ({ at: `${method} ${path} ${p.name}`, p }))),
  );
  // A pattern that admits only digits (^-?\d+$, ^[1-9]\d{0,9}$, ^\d{1,10}$) is an integer in disguise.
  const integerPattern = /^\^(-\?)?(\[1-9\])?\\d(\{[\d,]+\}|\+|\*)?\$$/;
  expect(integerPattern.test('^[1-9]\\d{0,9}$') && integerPattern.test('^-?\\d+$') && !integerPattern.test('^(general|\\d{1,15})$')).toBe(true);
  const numericStrings = params.filter(({ p }) => p.schema?.type === 'string' && typeof p.schema.pattern === 'string' && integerPattern.test(p.schema.pattern));
  expect(numericStrings.map(({ at, p }) => `${at}: ${p.schema.pattern}`)).toEqual([]);
  const get = (path: string, name: string) => doc.paths[path].get.parameters.find((p: any) => p.name === name).schema;
  expect(get('/api/v1/news/', 'page')).toEqual({ type: 'integer', minimum: 1, maximum: expect.any(Number) });
  expect(get('/api/v1/news/', 'per_page')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
  expect(get('/api/v1/intel/trending/', 'hours')).toMatchObject({ type: 'integer', minimum: 1, maximum: 168 });
  expect(get('/api/v1/events/', 'limit')).toMatchObject({ type: 'integer', minimum: 1 });
  expect(get('/api/v1/news/{id}/', 'id')).toMatchObject({ type: 'integer', minimum: 1, maximum: 2147483647 });
});

it('every route documents the shared error statuses with the error body, and every error code is listed', () => {
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      for (const status of ['401', '500']) {
        expect(op.responses[status]?.content?.['application/json']?.schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
      for (const [status, r] of Object.entries<any>(op.responses)) {
        if (Number(status) >= 400) expect(r.content, `${method} ${path} ${status}`).toBeDefined();
      }
    }
  }
  for (const code of Object.keys(allErrorCodes)) expect(doc.info.description).toContain(`\`${code}\``);
  // Statuses the issue found undocumented.
  expect(Object.keys(doc.paths['/api/v1/rewards/distributions/{month}/'].get.responses)).toContain('404');
  expect(Object.keys(doc.paths['/api/v1/provenance/receipts/{news_id}'].get.responses)).toContain('404');
  expect(Object.keys(doc.paths['/telegram/webhook'].post.responses)).toEqual(expect.arrayContaining(['401', '503']));
  expect(Object.keys(doc.paths['/api/v1/agent-chat/register/'].post.responses)).toEqual(expect.arrayContaining(['401', '403', '409']));
  expect(Object.keys(doc.paths['/api/v1/agent-chat/invite/'].post.responses)).toEqual(expect.arrayContaining(['401', '403']));
  expect(doc.paths['/api/v1/wallet/refresh/'].post.responses['401'].description).toContain('refresh_token_reused');
});

it.each(['the served document', "the run's artefact"])('the response check (on %s) refuses a response the document does not describe (the layer can fail)', (how) => {
  const checker = how === 'the served document' ? new ResponseChecker({ doc, errorCodes: errorCodeStatuses() }) : new ResponseChecker(loadCheckArtefact(inject('openapiChecks')));
  const h = (t = 'application/json') => new Headers({ 'content-type': t });
  const ok = { error: { code: 'drop_not_found', message: 'x', details: null } };
  expect(checker.check({ method: 'GET', path: '/api/v1/rewards/distributions/2025-01/0xabc/', status: 404, headers: h(), text: JSON.stringify(ok) })).toEqual([]);
  // An undocumented status.
  expect(checker.check({ method: 'GET', path: '/api/v1/rewards/distributions/2025-01/0xabc/', status: 409, headers: h(), text: JSON.stringify(ok) })[0]).toMatch(/not documented/);
  // A body that does not match.
  expect(checker.check({ method: 'GET', path: '/api/v1/rewards/allocation/', status: 200, headers: h(), text: '{"month": 5}' })[0]).toMatch(/does not match/);
  // An error code nobody listed.
  const errorFinding = (code: string) =>
    checker.check({ method: 'GET', path: '/api/v1/rewards/allocation/', status: 400, headers: h(), text: JSON.stringify({ error: { code, message: 'x', details: null } }) })[0];
  expect(errorFinding('zz_unlisted')).toMatch(/zz_unlisted/);
  // A registered code answered with another status than the registry gives it.
  expect(errorFinding('drop_not_found')).toMatch(/drop_not_found answered 400; src\/platform\/errors\/codes.ts says 404/);
  // An undocumented content type, and a path no operation has.
  expect(checker.check({ method: 'GET', path: '/api/v1/rewards/allocation/', status: 200, headers: h('text/plain'), text: 'x' })[0]).toMatch(/content type/);
  expect(checker.check({ method: 'GET', path: '/api/v1/nowhere/', status: 200, headers: h(), text: '{}' })[0]).toMatch(/no operation/);
  // A header with a wrong value.
  const trending = {
    method: 'GET',
    path: '/api/v1/intel/trending/',
    status: 200,
    headers: new Headers({ 'content-type': 'application/json', 'x-intel-cache': 'maybe' }),
    text: '{}',
  };
  expect(checker.check(trending).join('\n')).toMatch(/X-Intel-Cache/);
});
