/**
 * Every error code the code can raise is listed in the registry, src/platform/errors/codes.ts, from which README's
 * error table and the OpenAPI document's list are generated (test/unit/readme.test.ts checks README
 * is regenerated). The code is scanned for the ways an error code is raised; the response-check
 * layer (test/support/openapi-check.ts) also refuses any error body whose code is not listed.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { errorCodes, errorDescriptions as allErrorCodes } from '../../src/platform/errors/codes.js';
import { buildTestDocument } from '../support/openapi-document.js';

const SRC = new URL('../../src/', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** How an error code is raised in this code base (constructors, helpers, literal error bodies). */
const RAISES = [
  /new (?:DomainError|PaymentRejection)\(\s*'([a-z0-9_]+)'/g,
  /\b(?:badRequest|unauthorized|forbidden|notFound|conflict|errorBody|reject|unavailable)\(\s*'([a-z0-9_]+)'/g,
  /\bjson\(\s*\d{3},\s*'([a-z0-9_]+)'/g,
  /error:\s*\{\s*code:\s*'([a-z0-9_]+)'/g,
  // Refusal objects ({code, message}) returned to a caller that throws them. Field issues
  // ({path, code, message}), zod issues and article warnings are not error codes.
  /^(?!.*(?:warnings\.push|addIssue)).*\{\s*code:\s*'([a-z0-9_]+)',\s*message:/gm,
  // errors.ts: the fallback code of a bare HTTP status.
  /case \d{3}:\s*return '([a-z0-9_]+)'/g,
];

export function raisedCodes(source: string): Set<string> {
  const out = new Set<string>();
  for (const re of RAISES) for (const m of source.matchAll(re)) out.add(m[1]);
  return out;
}

it('every error code raised in src/ is listed (README table and OpenAPI document)', () => {
  const raised = new Map<string, string>();
  for (const f of files(SRC)) for (const c of raisedCodes(readFileSync(f, 'utf8'))) raised.set(c, f.slice(SRC.length));
  expect(raised.size).toBeGreaterThan(100);
  const unlisted = [...raised].filter(([c]) => !(c in allErrorCodes)).map(([c, f]) => `${c} (${f})`);
  expect(unlisted).toEqual([]);
  const description: string = buildTestDocument().info.description;
  const undocumented = [...raised.keys()].filter((c) => !description.includes(`\`${c}\``));
  expect(undocumented).toEqual([]);
});

it('the scan finds codes raised in each of the ways the code base raises them (the check above can fail)', () => {
  const sample = [
    "throw new DomainError('zz_one', 'x');",
    "throw badRequest('zz_two', 'x');",
    "throw reject('zz_three', 'x', 'y');",
    "json(401, 'zz_four', 'x');",
    "JSON.stringify({ error: { code: 'zz_five', message: 'x' } })",
    "return { code: 'zz_six', message: 'x' };",
    "throw new PaymentRejection(\n  'zz_seven', 'x');",
    "warnings.push({ code: 'not_an_error', message: 'x' });",
    "c.addIssue({ code: 'custom', message: 'x' });",
    "fields: [{ path: 'query.limit', code: 'not_an_error_either', message: 'x' }]",
  ].join('\n');
  expect([...raisedCodes(sample)].sort()).toEqual(['zz_five', 'zz_four', 'zz_one', 'zz_seven', 'zz_six', 'zz_three', 'zz_two']);
});

it('every status a route handler throws directly is documented for that operation', () => {
  const doc = buildTestDocument();
  const byOpId = new Map<string, any>();
  for (const item of Object.values<any>(doc.paths)) for (const op of Object.values<any>(item)) byOpId.set(op.operationId, op);
  const HELPERS: Record<string, number> = { badRequest: 400, unauthorized: 401, forbidden: 403, notFound: 404, conflict: 409 };
  const missing: string[] = [];
  let seen = 0;
  for (const f of files(SRC)) {
    // Each definition runs from its defineRoute({ to the next one (its handler included).
    for (const chunk of readFileSync(f, 'utf8').split('defineRoute({').slice(1)) {
      const id = /operationId: '([^']+)'/.exec(chunk)?.[1];
      if (!id) continue;
      seen++;
      const statuses = new Set<number>();
      // A code's status is the registry's (src/platform/errors/codes.ts): the error middleware maps it.
      for (const m of chunk.matchAll(/new DomainError\(\s*'([a-z0-9_]+)'/g)) statuses.add((errorCodes as Record<string, { status: number }>)[m[1]]?.status ?? 0);
      for (const m of chunk.matchAll(/\b(badRequest|unauthorized|forbidden|notFound|conflict)\(/g)) statuses.add(HELPERS[m[1]]);
      for (const s of statuses) if (!byOpId.get(id)?.responses[String(s)]) missing.push(`${id} (${f}): ${s}`);
    }
  }
  expect(seen).toBeGreaterThan(70);
  expect(missing).toEqual([]);
});

it('rule, query, service and job code names no HTTP status (the error middleware maps codes to statuses)', () => {
  // Everything but the HTTP layer: route files, the HTTP kit and the error renderer map codes to statuses.
  const httpLayer = (f: string) => /routes?\.ts$|-routes\.ts$|\/platform\/(http|errors)\//.test(f);
  const roots = [SRC, new URL('../../jobs/', import.meta.url).pathname];
  const found: string[] = [];
  for (const root of roots) {
    for (const f of files(root).filter((f) => !httpLayer(f))) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/new \w*(?:Error|Refusal|Rejection)\(\s*[1-5]\d\d\b|\bAppError\b/g)) found.push(`${f}: ${m[0]}`);
    }
  }
  expect(found).toEqual([]);
});

it('one error class: AppError, AgentChatRefusal and status-carrying errors are gone from src/', () => {
  const found: string[] = [];
  for (const f of files(SRC)) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/\b(?:AppError|AgentChatRefusal)\b|new DomainError\(\s*\d/g)) found.push(`${f.slice(SRC.length)}: ${m[0]}`);
  }
  expect(found).toEqual([]);
});

it('a description\'s own status (a leading "NNN:" or a trailing "(NNN)") agrees with the registry\'s status', () => {
  const wrong: string[] = [];
  for (const [code, spec] of Object.entries(errorCodes) as [string, { status: number; description: string; statusByKind?: Record<string, number> }][]) {
    const said = /^(\d{3})[ :]/.exec(spec.description)?.[1] ?? /\((\d{3})\)\.?$/.exec(spec.description)?.[1];
    const allowed = [spec.status, ...Object.values(spec.statusByKind ?? {})];
    if (said && !allowed.includes(Number(said))) wrong.push(`${code}: says ${said}, registry ${spec.status}`);
  }
  expect(wrong).toEqual([]);
});
