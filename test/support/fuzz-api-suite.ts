/**
 * The API fuzz suite (test/integration/fuzz-api-*.test.ts, fuzz tier). Hostile input over every
 * operation of the OpenAPI document: random path parameters, query strings, bodies (schema-shaped,
 * random JSON, malformed JSON, forms, multipart with files, wrong content types) and credentials
 * (none, staff+editor bearer, bot bearer, cookie with and without the trusted Origin, garbage
 * tokens, API keys). Every answer must come within the deadline, never be a 500 (503 only with a
 * documented "not configured/unavailable" code), and every JSON error must have the error shape.
 * The service must still answer afterwards.
 *
 * The operations are dealt round-robin to FUZZ_API_PARTS files, each with its own service, database
 * and Redis prefix, so the parts run side by side on the test run's workers; the first part also
 * checks the document's enumeration and the odd request lines.
 */
import fc, { replayLines } from './property.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { startRig, WEBHOOK_SECRET, type Rig } from './agent-chat.js';
import { sessionFor } from './auth.js';
import { hasErrorShape, operationsOf, requestFor, sendRaw, type Operation, type RawResponse } from './fuzz-http.js';

/** How many files share the operations (fuzz-api-1.test.ts ... fuzz-api-<n>.test.ts). */
const FUZZ_API_PARTS = 3;
const RUNS_PER_OPERATION = 100;
/** 503s that mean "this optional integration is not set up here", documented per route. */
const ALLOWED_503 = new Set([
  'payment_fallback_unavailable',
  'payments_not_configured',
  'payment_verifier_unavailable',
  'intel_unavailable',
  'intel_pending',
  'telegram_not_configured',
]);

/** Define part `part` (1-based) of the suite in the calling test file. */
export function fuzzApiSuite(part: number): void {
  let rig: Rig;
  let port: number;
  let doc: any;
  let auth: Record<string, string>[];
  const tally = { requests: 0, byClass: {} as Record<string, number>, byOperation: {} as Record<string, number>, slowestMs: 0 };

  beforeAll(async () => {
    rig = await startRig(
      {
        JOB_WAIT_MS: '0',
        ANON_DAILY_QUOTA: '100000000',
        SESSION_DAILY_QUOTA: '100000000',
        X402_PAY_TO: '0x' + '11'.repeat(20),
        X402_FACILITATOR_URL: 'http://127.0.0.1:9/',
        METRICS_TOKEN: 'fuzz-metrics-token-0123456789',
        BODY_LIMIT_BYTES: '65536',
      },
      { workers: false },
    );
    const { deps, http } = rig;
    port = Number(new URL(await http.base).port);
    doc = (await http.get('/api/v1/openapi.json')).body;
    const secret = deps.config.JWT_SECRET;
    const staff = await sessionFor(deps.db, secret, { roles: ['staff', 'editor'] });
    const bot = await sessionFor(deps.db, secret, { accountType: 'bot', username: 'fuzzbot' });
    const plain = await sessionFor(deps.db, secret);
    const linked = generateApiKey();
    await insertApiKey(deps.db, { id: generateKeyId(), ...linked, name: 'fuzz', email: null, useCase: null, userId: plain.userId, tier: 'builder' });
    const unlinked = generateApiKey();
    await insertApiKey(deps.db, { id: generateKeyId(), ...unlinked, name: 'fuzz2', email: null, useCase: null, userId: null, tier: 'free' });
    const origin = deps.config.TRUSTED_ORIGIN;
    auth = [
      {},
      {},
      staff.bearer,
      staff.bearer,
      bot.bearer,
      plain.cookie(origin),
      { cookie: `access_token=${staff.token}` },
      { authorization: `Bearer ${linked.raw}` },
      { authorization: `Bearer ${unlinked.raw}` },
      { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' },
      { authorization: 'Basic YTpi' },
      { cookie: 'access_token=garbage; refresh_token=' + 'x'.repeat(3000) },
    ];
    // Something for the id-shaped parameters (1..6) to find: articles in each state, a yap.
    for (let i = 0; i < 4; i++) {
      const r = await http.post('/api/v1/news/post', { url: `https://example.com/fuzz/${i}`, headline: `Fuzz seed ${i}` }, staff.bearer);
      expect(r.status).toBeLessThan(300);
    }
    await http.post('/api/v1/news/1/approve', undefined, staff.bearer);
    await http.post('/api/v1/news/2/kill', undefined, staff.bearer);
    await http.post('/api/v1/news/1/post_yap', { text: 'seed yap', tags: ['tldr'] }, staff.bearer);
  }, 120_000);

  afterAll(async () => {
    const lines = Object.entries(tally.byClass)
      .sort()
      .map(([k, v]) => `${k}: ${v}`);
    console.log(
      `[fuzz-api ${part}/${FUZZ_API_PARTS}] ${tally.requests} requests over ${Object.keys(tally.byOperation).length} operations; ${lines.join(', ')}; slowest ${Math.round(tally.slowestMs)} ms`,
    );
    await rig?.close();
  });

  function judge(op: Operation, res: RawResponse): string | null {
    tally.requests++;
    tally.byOperation[op.operationId] = (tally.byOperation[op.operationId] ?? 0) + 1;
    tally.byClass[String(res.status)] = (tally.byClass[String(res.status)] ?? 0) + 1;
    tally.slowestMs = Math.max(tally.slowestMs, res.ms);
    const json = /json/.test(String(res.headers['content-type'] ?? ''));
    // Node's HTTP parser answers some requests itself (e.g. 431 for a request head over the limit):
    // no app headers then, and only these statuses.
    if (!res.headers['x-request-id']) return [400, 408, 413, 414, 431].includes(res.status) ? null : `${res.status} without passing through the app`;
    if (res.status >= 500) {
      const code = json ? JSON.parse(res.text)?.error?.code : null;
      const fine = (res.status === 503 && ALLOWED_503.has(code)) || (res.status === 501 && code === 'not_implemented');
      if (!fine) return `${res.status} ${code ?? res.text.slice(0, 200)}`;
    }
    if (res.status >= 400 && json && !hasErrorShape(res.text)) return `error without the error shape: ${res.text.slice(0, 200)}`;
    if (!res.headers['x-content-type-options']) return 'security headers missing';
    return null;
  }

  describe('fuzz: every operation of the OpenAPI document', () => {
    if (part === 1)
      it('enumerates the document', () => {
        const ops = operationsOf(doc);
        expect(ops.length).toBeGreaterThan(40);
        expect(ops.map((o) => o.operationId)).toEqual(expect.arrayContaining(['healthz']));
      });

    it(`never answers 500, never hangs, always in the error shape (operations ${part} of every ${FUZZ_API_PARTS})`, async () => {
      const ops = operationsOf(doc).filter((_, i) => i % FUZZ_API_PARTS === part - 1);
      expect(ops.length).toBeGreaterThan(0);
      const extra: Record<string, string>[] = [
        { 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
        { 'payment-signature': 'eyJ4NDAyVmVyc2lvbiI6Mn0=' },
        { 'x-payment-tx': '0x' + 'ab'.repeat(32), 'x-payment-from': '0x' + '22'.repeat(20) },
      ];
      const failures: string[] = [];
      for (const op of ops) {
        await fc
          .assert(
            fc.asyncProperty(requestFor(op, doc, auth, extra), async (req) => {
              const res = await sendRaw(port, req);
              const problem = judge(op, res);
              if (problem)
                failures.push(
                  `${op.operationId}: ${req.method} ${req.path.slice(0, 160)} [${Object.keys(req.headers).join(',')}; ${req.body?.subarray(0, 80).toString() ?? ''}] -> ${problem}`,
                );
              return problem === null;
            }),
            { numRuns: RUNS_PER_OPERATION, endOnFailure: true },
          )
          .catch((err) => failures.push(`${op.operationId}: ${replayLines(err)}`));
      }
      expect(failures).toEqual([]);
      // Still alive and still ready.
      const ready = await sendRaw(port, { method: 'GET', path: '/readyz', headers: {} });
      expect(ready.status).toBe(200);
    }, 900_000);

    if (part === 1)
      it('odd request lines and methods never 500', async () => {
        const cases = [
          { method: 'GET', path: '//api//v1//news//' },
          { method: 'GET', path: '/api/v1/news/%E0%A4%A/' },
          { method: 'GET', path: '/api/v1/news/%/' },
          { method: 'GET', path: '/api/v1/news/?page=%FF%FE' },
          { method: 'GET', path: '/api/v1/news/?a=1&a=2&status=approved&status=all' },
          { method: 'GET', path: '/api/v1/news/?__proto__[x]=1&constructor[prototype][y]=2' },
          { method: 'GET', path: '/' + 'a/'.repeat(2000) },
          { method: 'PROPFIND', path: '/api/v1/news/' },
          { method: 'TRACE', path: '/api/v1/news/' },
          { method: 'OPTIONS', path: '/api/v1/news/' },
          { method: 'HEAD', path: '/api/v1/news/' },
          { method: 'DELETE', path: '/api/v1/news/1/' },
          { method: 'POST', path: '/api/v1/openapi.json' },
          { method: 'GET', path: '/admin/queues/../../api/v1/news/' },
          { method: 'GET', path: '/metrics/../api/v1/news/' },
        ];
        for (const c of cases) {
          const res = await sendRaw(port, { ...c, headers: {} });
          // 501 not_implemented is the documented answer to a method the server does not know.
          if (res.status === 501) expect(JSON.parse(res.text).error.code).toBe('not_implemented');
          else expect(res.status, `${c.method} ${c.path}`).toBeLessThan(500);
        }
      });
  });
}
