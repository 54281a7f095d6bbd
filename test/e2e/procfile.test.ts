/**
 * The Procfile's processes as separate OS processes on this file's own database and queue prefix:
 * driven over HTTP and WebSocket, then stopped with SIGTERM one by one. They run the test run's
 * JavaScript copy of the sources (`prebuilt`, scripts/lib/prebuilt-js.ts): how each is started is
 * covered by the launcher test (every type through tsx, as `npm start` does) and procfile-built
 * (the Procfile's own command lines on `npm run build`'s output).
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../scripts/lib/services.js';
import { serviceTypes } from '../../scripts/lib/procfile.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis, type Redis } from '../../src/platform/redis.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { killAll, startProcfileType, waitForHttp, type Proc } from '../../scripts/lib/harness.js';
import { jobs } from '../../jobs/index.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
let db: Db;
let redis: Redis;
let queue: QueueClient;
let procs: Record<string, Proc> = {};
let misconfigured: Proc;
let web: string;
let wsBase: string;

beforeAll(async () => {
  const port = await freePort();
  const wsPort = await freePort();
  web = `http://127.0.0.1:${port}`;
  wsBase = `ws://127.0.0.1:${wsPort}`;
  env = await createTestEnv({ PORT: String(port), WS_PORT: String(wsPort), TRUSTED_ORIGIN: web, LOG_LEVEL: 'info' });
  db = createDb(env.databaseUrl, { max: 2 });
  redis = createRedis(env.redisUrl, 'command', 'e2e');
  queue = new QueueClient(jobs, redis, env.redisUrl, env.prefix);
  // Exactly what the Procfile lists (release aside), each its own OS process.
  procs = Object.fromEntries(serviceTypes().map((t) => [t.name, startProcfileType(t.name, env.env, { prebuilt: true })]));
  // Started now so its boot overlaps the others'; its test only reads how it ended.
  misconfigured = startProcfileType('web', { ...env.env, PORT: 'eighty', TRUSTED_ORIGIN: 'http://127.0.0.1:8000/path' }, { prebuilt: true });
  const all = Object.values(procs);
  // Generous limits: four processes import the app at once, and a loaded CI machine can take a
  // minute for that; normally all four are up in a few seconds.
  const limit = 120_000;
  await Promise.all([
    waitForHttp(`${web}/readyz`, all, limit),
    waitForHttp(`http://127.0.0.1:${wsPort}/healthz`, all, limit),
    procs.worker.waitForOutput(/"msg":"workers started"/, limit),
    procs.clock.waitForOutput(/"msg":"job schedulers upserted"/, limit),
  ]);
}, 150_000);

afterAll(async () => {
  await killAll([...Object.values(procs), misconfigured].filter(Boolean));
  await queue?.close();
  redis?.disconnect();
  await db?.destroy();
  await env?.cleanup();
});

function logLines(p: Proc): Record<string, unknown>[] {
  return p
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

describe('Procfile processes over HTTP', () => {
  it('the Procfile names web, worker, ws and clock, plus a release phase', () => {
    expect(serviceTypes().map((t) => t.name)).toEqual(['web', 'worker', 'ws', 'clock']);
  });

  it('answers liveness and readiness', async () => {
    const live = await fetch(`${web}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${web}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', postgres: 'ok', redis: 'ok' });
  });

  it('renders an unknown route as a 404 in the error shape, and logs the request as JSON with its id', async () => {
    const res = await fetch(`${web}/api/v1/no-such-thing`, { headers: { 'x-request-id': 'e2e-404-probe' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('e2e-404-probe');
    const body = (await res.json()) as any;
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatchObject({ code: 'not_found', message: expect.any(String) });
    expect(body.error).toHaveProperty('details');
    await procs.web.waitForOutput(/e2e-404-probe/, 5000);
    const line = logLines(procs.web).find((l) => JSON.stringify(l).includes('e2e-404-probe'));
    expect(line).toMatchObject({ proc: 'web', level: 30 });
  });

  it('serves the OpenAPI document', async () => {
    const res = await fetch(`${web}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const doc = (await res.json()) as any;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.4.0');
  });

  it("serves the files it reads from beside its modules: the editor console's script and the API reference's redoc bundle", async () => {
    const script = await fetch(`${web}/editor/assets/editor.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toBe(readFileSync(new URL('../../src/editor/assets/editor.js', import.meta.url), 'utf8'));
    const redoc = await fetch(`${web}/api/v1/docs/redoc.js`);
    expect(redoc.status).toBe(200);
    // Served with its external logo URL replaced (src/api-docs/routes.ts): compare its opening.
    const served = await redoc.text();
    expect(served.slice(0, 2000)).toBe(readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8').slice(0, 2000));
  });

  it('runs the release phase (migrations) and exits 0', async () => {
    const release = startProcfileType('release', env.env, { prebuilt: true });
    expect(await release.exited).toEqual({ code: 0, signal: null });
    expect(release.output()).toContain('database is up to date');
  });
});

describe('a job event reaches a WebSocket client', () => {
  it('refuses a handshake from an untrusted Origin with 403', async () => {
    const ws = new WebSocket(`${wsBase}/ws/news/`, { origin: 'https://evil.example' });
    ws.on('error', () => undefined);
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, { statusCode: number }];
    expect(res.statusCode).toBe(403);
    ws.terminate();
  });

  it('publish-scheduled, run by the worker process, is relayed by the ws process as a news.approved batch', async () => {
    const ws = new WebSocket(`${wsBase}/ws/news/`, { origin: web });
    const frames: any[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    await once(ws, 'open');

    const headline = `E2E scheduled article ${Date.now()}`;
    const article = await db
      .insertInto('articles')
      .values({
        slug: 'e2e-scheduled-article',
        headline,
        url: 'https://news.example/e2e',
        normalized_url: 'news.example/e2e',
        status: 'scheduled',
        scheduled_for: sql<Date>`now()`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await queue.enqueue('publish-scheduled', { article_id: article.id });

    const published = () => frames.find((f) => f.events?.some((e: any) => e.id === article.id));
    const frame: any = await waitFor(published, { timeout: 10_000, interval: 25 }).catch(() => undefined);
    expect(frame, `frames received: ${JSON.stringify(frames)}`).toBeDefined();
    // The batch frame of the spec ({events, t}); later issues may add fields to it and to events.
    expect(frame).toMatchObject({
      events: [
        {
          type: 'news.approved',
          id: article.id,
          slug: 'e2e-scheduled-article',
          status: 'approved',
          headline,
          date_posted: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
          origin: 'manual',
          previous_status: 'scheduled',
          sponsored: null,
        },
      ],
      t: expect.any(Number),
    });
    expect(Math.abs(frame.t - Date.now() / 1000)).toBeLessThan(30);
    const row = await db.selectFrom('articles').select(['status', 'published_at']).where('id', '=', article.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('approved');
    expect(row.published_at).toBeInstanceOf(Date);
    ws.close();
  });
});

describe('SIGTERM', () => {
  it('ws closes every connection with 1001 and exits 0', async () => {
    const ws = new WebSocket(`${wsBase}/ws/news/`, { origin: web });
    await once(ws, 'open');
    const closed = once(ws, 'close') as Promise<[number, Buffer]>;
    const exit = procs.ws.stop('SIGTERM');
    const [code] = await closed;
    expect(code).toBe(1001);
    expect(await exit).toEqual({ code: 0, signal: null });
  });

  it('web, worker and clock exit 0', async () => {
    const exits = await Promise.all(['web', 'worker', 'clock'].map((n) => procs[n].stop('SIGTERM')));
    for (const [i, n] of ['web', 'worker', 'clock'].entries()) {
      expect({ proc: n, ...exits[i] }, procs[n].output().slice(-2000)).toEqual({ proc: n, code: 0, signal: null });
      expect(procs[n].output()).toContain('"msg":"shut down cleanly"');
    }
    // web no longer accepts connections
    await expect(fetch(`${web}/healthz`)).rejects.toThrow();
  });
});

describe('configuration errors', () => {
  it('web exits with 78 listing every bad variable', async () => {
    const exit = await misconfigured.exited;
    expect(exit).toEqual({ code: 78, signal: null });
    const out = misconfigured.output();
    expect(out).toMatch(/^\s+- PORT: /m);
    expect(out).toMatch(/^\s+- TRUSTED_ORIGIN: /m);
  });
});
