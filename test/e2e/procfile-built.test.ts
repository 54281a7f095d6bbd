/**
 * Production as the platform runs it: `npm run build` (the build phase's heroku-postbuild), then
 * every Procfile line exactly as written, through `bash -c`, with only the platform's environment
 * (PATH, HOME, PORT and the config vars: NODE_ENV=production, DATABASE_URL, REDIS_URL, ...). The
 * release phase first, then web, worker, ws and clock; health checks, and one request that goes
 * web -> worker -> ws: a wallet signs in and submits a URL without a headline (the worker reads the
 * page title while the request waits), an editor approves it, and a WebSocket client of the ws
 * process receives news.approved.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildDist, platformEnv } from '../../scripts/lib/build.js';
import { readProcfile, repoRoot, serviceTypes } from '../../scripts/lib/procfile.js';
import { freePort } from '../../scripts/lib/services.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { sessionFor, signIn } from '../support/auth.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startPageServer, type PageServer } from '../support/news-page-server.js';
import { killAll, startShell, waitForHttp, type Proc } from '../../scripts/lib/harness.js';
import type { TestResponse } from '../support/request.js';

let env: TestEnv;
let db: Db;
let pages: PageServer;
let dataDir: string;
const procs: Record<string, Proc> = {};
let release: Proc;
let web: string;
let wsPort: number;
let vars: Record<string, string>;
let buildMs = 0;

beforeAll(async () => {
  // The build runs here, once for this file (about 15-30 s on a loaded 2-core machine).
  buildMs = (await buildDist()).ms;
  const webPort = await freePort();
  wsPort = await freePort();
  web = `http://127.0.0.1:${webPort}`;
  env = await createTestEnv();
  db = createDb(env.databaseUrl, { max: 2 });
  pages = await startPageServer();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'squid-built-'));
  // The config vars an operator sets; nothing else of this process's environment leaks in.
  vars = {
    NODE_ENV: 'production',
    DATABASE_URL: env.databaseUrl,
    REDIS_URL: env.redisUrl,
    QUEUE_PREFIX: env.prefix,
    JWT_SECRET: env.env.JWT_SECRET,
    WS_PORT: String(wsPort),
    TRUSTED_ORIGIN: web,
    PUBLIC_BASE_URL: web,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    // The "news site" of this test is on loopback.
    OUTBOUND_ALLOW_PRIVATE: 'true',
    JOB_WAIT_MS: '5000',
  };
  // The platform gives every process its own PORT; web's is the one the router sends traffic to.
  const portOf = async (name: string) => (name === 'web' ? String(webPort) : String(await freePort()));
  const types = readProcfile();
  const rel = types.find((t) => t.name === 'release')!;
  release = startShell('release', rel.command, platformEnv({ ...vars, PORT: await portOf('release') }));
  await release.exited;
  for (const t of serviceTypes()) procs[t.name] = startShell(t.name, t.command, platformEnv({ ...vars, PORT: await portOf(t.name) }));
  const all = Object.values(procs);
  await Promise.all([
    waitForHttp(`${web}/readyz`, all, 60_000),
    waitForHttp(`http://127.0.0.1:${wsPort}/healthz`, all, 60_000),
    procs.worker.waitForOutput(/"msg":"workers started"/, 60_000),
    procs.clock.waitForOutput(/"msg":"job schedulers upserted"/, 60_000),
  ]);
}, 240_000);

afterAll(async () => {
  await killAll(Object.values(procs));
  await pages?.close();
  await db?.destroy();
  await env?.cleanup();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The command lines of `pid` and its descendants (bash execs a single command; a shell that forks shows up as a parent). */
function processTree(pid: number): string[][] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* gone */
    }
  }
  const out: string[][] = [];
  const walk = (p: number) => {
    try {
      out.push(readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean));
    } catch {
      return;
    }
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

const http = {
  async send(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> {
    const h = { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const res = await fetch(web + p, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  },
  get: (p: string, headers?: Record<string, string>) => http.send('GET', p, undefined, headers),
  post: (p: string, body?: unknown, headers?: Record<string, string>) => http.send('POST', p, body, headers),
};

describe('the built processes, started from the Procfile as the platform does', () => {
  it('the Procfile runs plain node on the build output, and the build emitted every entry', () => {
    for (const t of readProcfile()) {
      expect(t.command, t.name).toMatch(/^node dist\/\S+\.js$/);
      expect(existsSync(path.join(repoRoot, t.built!)), t.built!).toBe(true);
    }
    expect(buildMs).toBeGreaterThan(0);
  });

  it('ran the release phase to completion', async () => {
    expect(await release.exited, release.output()).toEqual({ code: 0, signal: null });
    expect(release.output()).toContain('database is up to date');
  });

  it('every process is plain node on dist/, with no TypeScript loader anywhere in its process tree', () => {
    for (const [name, p] of Object.entries(procs)) {
      const tree = processTree(p.pid);
      const entry = readProcfile().find((t) => t.name === name)!.built!;
      expect(
        tree.some((argv) => path.basename(argv[0]) === 'node' && argv[1] === entry && argv.length === 2),
        `${name}: ${JSON.stringify(tree)}`,
      ).toBe(true);
      expect(tree.flat().join(' '), name).not.toMatch(/tsx|\.ts\b/);
    }
  });

  it('answers health and readiness on web and ws', async () => {
    expect(await (await fetch(`${web}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${web}/readyz`)).json()).toEqual({ status: 'ok', postgres: 'ok', redis: 'ok' });
    expect((await fetch(`http://127.0.0.1:${wsPort}/healthz`)).status).toBe(200);
  });

  it('a submission goes web -> worker (page title) and its approval reaches a WebSocket client of ws', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/ws/news/`, { origin: web });
    const events: { type: string; id: number; headline?: string }[] = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (Array.isArray(frame.events)) events.push(...frame.events);
    });
    await once(ws, 'open');

    const author = await signIn(http);
    const title = `Built processes ship ${Date.now()}`;
    const submitted = await http.post('/api/v1/news/post', { url: `${pages.base}/article?title=${encodeURIComponent(title)}` }, { authorization: `Bearer ${author.accessToken}` });
    expect(submitted.status, submitted.text).toBe(201);
    // The headline came from the page, read by the worker process while web waited for the job.
    expect(submitted.body).toMatchObject({ status: 'submitted', headline: title, headline_source: 'page_title' });
    const id = submitted.body.article_id as number;

    const editor = await sessionFor(db, vars.JWT_SECRET, { roles: ['editor'] });
    const approved = await http.post(`/api/v1/news/${id}/approve`, undefined, editor.bearer);
    expect(approved.status, approved.text).toBe(200);

    await expect.poll(() => events.filter((e) => e.id === id).map((e) => e.type), { timeout: 15_000, interval: 50 }).toEqual(['news.approved']);
    expect(events.find((e) => e.id === id)).toMatchObject({ headline: title });
    ws.close();
  });

  it('stops every process cleanly on SIGTERM', async () => {
    for (const [name, p] of Object.entries(procs)) {
      expect(await p.stop('SIGTERM'), `${name}:\n${p.output().slice(-2000)}`).toEqual({ code: 0, signal: null });
    }
  });
});
