/**
 * End to end, in one process but over real HTTP, Redis, Postgres and WebSocket: a user signs in
 * with a wallet, submits a URL without a headline (the worker reads the title from a local page
 * server), an editor approves it, and the article shows up first in the hot feed, as news.approved
 * in the Redis event stream, and on an anonymous WebSocket client of the broadcaster.
 */
import type { AddressInfo } from 'node:net';
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createBroadcaster, WS_PATH } from '../../src/stream/server.js';
import { startTestWorkers } from '../support/workers.js';
import { signIn } from '../support/auth.js';
import { startPageServer, type PageServer } from '../support/news-page-server.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { useTestApp } from '../support/app.js';

let relay: RunningRelay;

const app = useTestApp(undefined, { OUTBOUND_ALLOW_PRIVATE: 'true', JOB_WAIT_MS: '4000' });
let pages: PageServer;
let workers: Worker[];
let broadcaster: ReturnType<typeof createBroadcaster>;
let wsUrl: string;

beforeAll(async () => {
  relay = await startRelay(app.deps);
  pages = await startPageServer();
  workers = startTestWorkers(app.deps, ['page-title', 'hot-scores'], { concurrencyCap: 4 });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  broadcaster = createBroadcaster({
    redisUrl: app.deps.config.REDIS_URL,
    streamKey: app.deps.events.streamKey,
    trustedOrigin: app.deps.config.TRUSTED_ORIGIN,
    log: app.deps.log,
    batchMs: 50,
  });
  await (broadcaster as { ready?: Promise<void> }).ready;
  await new Promise<void>((r) => broadcaster.server.listen(0, '127.0.0.1', r));
  wsUrl = `ws://127.0.0.1:${(broadcaster.server.address() as AddressInfo).port}${WS_PATH}`;
});
afterAll(async () => {
  await relay.close();
  await broadcaster.close();
  await Promise.all(workers.map((w) => w.close()));
  await pages.close();
});

function connect(): Promise<{ ws: WebSocket; events: { type: string; id: number; [k: string]: unknown }[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, { headers: { origin: app.deps.config.TRUSTED_ORIGIN } });
    const events: { type: string; id: number }[] = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (Array.isArray(frame.events)) events.push(...frame.events);
    });
    ws.once('open', () => resolve({ ws, events }));
    ws.once('error', reject);
  });
}

it('submit without a headline, approve, and see it in the hot feed, the event stream and on a WebSocket', async () => {
  const client = await connect();
  // No wait needed: beforeAll awaited broadcaster.ready, which resolves once the stream reader holds an
  // explicit position at the stream's end (it never reads from `$`), so every later event is read.

  const author = await signIn(app.http); // the real wallet flow: nonce, personal_sign, verify
  const editor = await app.session({ roles: ['editor'] });
  const url = `${pages.base}/article?title=${encodeURIComponent('Lido ships withdrawals on Arbitrum')}`;

  const submitted = await app.http.post('/api/v1/news/post', { url }, { authorization: `Bearer ${author.accessToken}` });
  expect(submitted.status).toBe(201);
  expect(submitted.body).toMatchObject({ success: true, status: 'submitted', headline: 'Lido ships withdrawals on Arbitrum', headline_source: 'page_title', warnings: [] });
  const id = submitted.body.article_id as number;

  // In the editor queue, not yet in the public feed.
  const queue = await app.http.get('/api/v1/news/?status=submitted&sort_type=new', editor.bearer);
  expect(queue.body.results[0].id).toBe(id);
  expect((await app.http.get('/api/v1/news/')).body.results.map((a: { id: number }) => a.id)).not.toContain(id);

  const approved = await app.http.post(`/api/v1/news/${id}/approve`, undefined, editor.bearer);
  expect(approved.status).toBe(200);

  const feed = await app.http.get('/api/v1/news/?sort_type=hot');
  expect(feed.body.results[0]).toMatchObject({ id, headline: 'Lido ships withdrawals on Arbitrum', status: 'approved', url, source: '127.0.0.1' });
  expect(feed.body.results[0].hot_score).toBeGreaterThan(0);

  await relayed(app.deps);
  const stream = ((await app.deps.redis.xrange(app.deps.events.streamKey, '-', '+')) as [string, string[]][]).map(([, f]) => JSON.parse(f[1]));
  const mine = stream.filter((e) => e.id === id);
  expect(mine.map((e) => e.type)).toEqual(['news.submitted', 'news.approved']);
  expect(mine[1]).toMatchObject({ status: 'approved', previous_status: 'submitted', headline: 'Lido ships withdrawals on Arbitrum', slug: 'lido-ships-withdrawals-on-arbitrum' });

  // The anonymous WebSocket client gets the public news.approved, never the staff-only news.submitted.
  await expect.poll(() => client.events.filter((e) => e.id === id).map((e) => e.type), { timeout: 5000, interval: 50 }).toEqual(['news.approved']);
  expect(client.events.find((e) => e.id === id)).toMatchObject({ previous_status: 'submitted', headline: 'Lido ships withdrawals on Arbitrum' });
  client.ws.close();
});
