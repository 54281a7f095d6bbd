/**
 * A typed client generated from the served document with a mainstream generator (openapi-typescript
 * for the types, openapi-fetch for the calls) compiles a small program under tsc --strict, and the
 * program runs against the service. The program also asserts, through @ts-expect-error, that the
 * generated types take integers for integer parameters (a string page no longer type-checks).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
// Under node_modules so the program resolves openapi-fetch from the project; removed afterwards.
const DIR = `${ROOT}node_modules/.cache/openapi-client-test-${process.pid}`;

const app = useTestApp();
beforeAll(async () => {
  mkdirSync(DIR, { recursive: true });
});
afterAll(async () => {
  rmSync(DIR, { recursive: true, force: true });
});

const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL });

async function main(): Promise<void> {
  const feed = await client.GET('/api/v1/news/', { params: { query: { page: 1, per_page: 5, sort_type: 'new' } } });
  if (!feed.data) throw new Error('feed failed: ' + JSON.stringify(feed.error));
  const count: number = feed.data.count;
  const items: components['schemas']['ArticleItem'][] = feed.data.results;

  const missing = await client.GET('/api/v1/news/{id}/', { params: { path: { id: 999999 } } });
  if (missing.data !== undefined || missing.response.status !== 404) throw new Error('expected 404');
  const code: string = missing.error.error.code;

  const bad = await client.GET('/api/v1/news/', { params: { query: { page: 0 } } });
  const badCode: string | undefined = bad.error?.error.code;

  const boards = await client.GET('/api/v1/leaderboards/', { params: { query: { limit: 3, board: 'top_posters' } } });
  const frozen: boolean | undefined = boards.data?.frozen;

  // Integer parameters are integers in the generated types, not strings.
  // @ts-expect-error page is a number
  void client.GET('/api/v1/news/', { params: { query: { page: '1' } } });
  // @ts-expect-error hours is a number
  void client.GET('/api/v1/intel/trending/', { params: { query: { hours: '24' } } });

  process.stdout.write(JSON.stringify({ count, items: items.length, code, badCode, frozen }));
}

void main();
`;

it('openapi-typescript + openapi-fetch: the generated client compiles a program under tsc --strict, and it runs', async () => {
  const doc = (await app.http.get('/api/v1/openapi.json')).body;
  const types = astToString(await openapiTS(doc));
  expect(types).toContain('"/api/v1/news/"');
  writeFileSync(`${DIR}/schema.ts`, types);
  writeFileSync(`${DIR}/program.ts`, PROGRAM);
  writeFileSync(
    `${DIR}/tsconfig.json`,
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [`${ROOT}node_modules/@types`],
      },
      files: ['program.ts', 'schema.ts'],
    }),
  );
  const tsc = await run(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${DIR}/tsconfig.json`], { cwd: DIR }).catch((e) => e);
  expect(`${tsc.stdout ?? ''}${tsc.stderr ?? ''}`).toBe('');

  // The same program runs against the service (tsx strips the types).
  const out = await run(process.execPath, ['--import', 'tsx', `${DIR}/program.ts`], { cwd: ROOT, env: { ...process.env, BASE_URL: await app.http.base } });
  expect(JSON.parse(out.stdout)).toEqual({ count: 0, items: 0, code: 'article_not_found', badCode: 'validation_failed', frozen: false });
}, 120_000);

it('tsc refuses a program that misuses the generated types (the check above can fail)', async () => {
  writeFileSync(`${DIR}/program.ts`, PROGRAM.replace('// @ts-expect-error page is a number\n', ''));
  const tsc = await run(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', `${DIR}/tsconfig.json`], { cwd: DIR }).catch((e) => e);
  expect(`${tsc.stdout}`).toMatch(/error TS2322|error TS2769|error TS2353/);
}, 120_000);
