/**
 * The ws process (as the Procfile starts it): GET /metrics on its port with the scrape token
 * (connections, frames sent, stream lag), and the same connection-level limits as web: a request
 * head over HTTP_MAX_HEADER_BYTES is 431, a slowloris upgrade is cut off after the headers timeout,
 * while an established WebSocket outlives the request timeout.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../scripts/lib/services.js';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { createRedis, type Redis } from '../../src/platform/redis.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startProcfileType, waitForHttp, type Proc } from '../../scripts/lib/harness.js';
import { quietFor, waitFor } from '../support/wait.js';

const TOKEN = 'ws-metrics-token-0123456789abcdef';
const ORIGIN = 'http://127.0.0.1:8000';
let env: TestEnv;
let ws: Proc;
let port: number;
let redis: Redis;
const clients: WebSocket[] = [];

const scrape = async () => {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  return r.text();
};
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  port = await freePort();
  env = await createTestEnv({
    WS_PORT: String(port),
    TRUSTED_ORIGIN: ORIGIN,
    METRICS_TOKEN: TOKEN,
    HTTP_MAX_HEADER_BYTES: '4096',
    HTTP_HEADERS_TIMEOUT_MS: '2000',
    HTTP_REQUEST_TIMEOUT_MS: '3000',
    LOG_LEVEL: 'warn',
  });
  redis = createRedis(env.redisUrl, 'command', 'ws-metrics-test');
  ws = startProcfileType('ws', env.env, { prebuilt: true });
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, [ws], 120_000);
}, 150_000);

afterAll(async () => {
  for (const c of clients) c.terminate();
  await ws?.stop('SIGTERM');
  redis?.disconnect();
  await env?.cleanup();
});

function connect(): Promise<WebSocket> {
  const c = new WebSocket(`ws://127.0.0.1:${port}/ws/news/`, { origin: ORIGIN });
  clients.push(c);
  return new Promise((resolve, reject) => {
    c.once('open', () => resolve(c));
    c.once('error', reject);
  });
}

describe('ws process: /metrics', () => {
  it('needs the token', async () => {
    const none = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('metrics_token_invalid');
    const wrong = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer nope-nope-nope-nope' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain(TOKEN);
  });

  it('reports connections, frames sent and a caught-up reader', async () => {
    const before = await scrape();
    expect(sample(before, 'squid_ws_connections{class="public"}')).toBe(0);
    const a = await connect();
    await connect();
    await connect();
    const got = new Promise((r) => a.once('message', r));
    const publisher = new EventPublisher(redis, eventStreamKey(env.prefix), 1000);
    await publisher.publish({
      type: 'news.approved',
      id: 1,
      slug: 's',
      status: 'approved',
      headline: 'H',
      date_posted: new Date().toISOString(),
      origin: 'manual',
      sponsored: null,
    });
    await got;
    // Every client's frame is counted once all three were sent (the event reached the first of them).
    const text = await waitFor(
      async () => {
        const t = await scrape();
        return (sample(t, 'squid_ws_frames_sent_total') ?? 0) >= 3 ? t : null;
      },
      { what: 'three frames counted' },
    );
    expect(sample(text, 'squid_ws_connections{class="public"}')).toBe(3);
    expect(sample(text, 'squid_ws_frames_sent_total')).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'squid_ws_stream_entries_read_total')).toBe(1);
    expect(sample(text, 'squid_ws_stream_lag_seconds')).toBe(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('ws process: connection-level limits', () => {
  it('refuses an oversized request head with 431', async () => {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'x-padding': 'a'.repeat(5000) } });
    expect(r.status).toBe(431);
  });

  it('cuts off a slowloris upgrade after the headers timeout, keeps an open WebSocket past the request timeout', async () => {
    const open = await connect();
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    socket.write(`GET /ws/news/ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`);
    const drip = setInterval(() => socket.writable && socket.write('X-a: b\r\n'), 300);
    const closedAfter = await new Promise<number>((r) => socket.on('close', () => r(Date.now() - started)));
    clearInterval(drip);
    expect(closedAfter).toBeGreaterThanOrEqual(1900);
    expect(closedAfter).toBeLessThan(4500);
    // The WebSocket opened before is still up, well past the 3 s request timeout.
    // Check window past the 3 s request timeout: the open WebSocket is not cut.
    await quietFor(Math.max(0, 3500 - (Date.now() - started)));
    expect(open.readyState).toBe(WebSocket.OPEN);
  });
});
