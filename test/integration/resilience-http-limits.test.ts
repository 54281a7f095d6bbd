/**
 * The web process (as the Procfile starts it) against hostile clients at the connection level:
 * a request head over HTTP_MAX_HEADER_BYTES is refused with 431; a client that trickles its
 * headers (slowloris) or its body is cut off after HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS;
 * and a crowd of such clients does not stop others from being served.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startProcfileType, waitForHttp, type Proc } from '../../scripts/lib/harness.js';

let env: TestEnv;
let web: Proc;
let port: number;

beforeAll(async () => {
  port = await freePort();
  env = await createTestEnv({ PORT: String(port), HTTP_MAX_HEADER_BYTES: '4096', HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '4000', LOG_LEVEL: 'warn' });
  web = startProcfileType('web', env.env);
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, [web], 120_000);
}, 150_000);

afterAll(async () => {
  await web?.stop('SIGTERM');
  await env?.cleanup();
});

interface Trickle {
  /** Resolves when the server closes the connection: what it answered (if anything) and when. */
  ended: Promise<{ reply: string; afterMs: number }>;
  /** Resolves when the connection is open and the head written. */
  sent: Promise<void>;
  stop(): void;
}

/** Send `head` at once, then one byte of `drip` every `everyMs` until the server hangs up. */
function trickle(head: string, drip: string, everyMs: number): Trickle {
  const started = Date.now();
  const socket = net.connect({ host: '127.0.0.1', port });
  let reply = '';
  socket.on('data', (d) => (reply += d.toString('latin1')));
  socket.on('error', () => undefined);
  let i = 0;
  const timer = setInterval(() => {
    if (!socket.writable) return;
    socket.write(drip[i++ % drip.length]);
  }, everyMs);
  const sent = new Promise<void>((resolve) => socket.write(head, () => resolve()));
  const ended = new Promise<{ reply: string; afterMs: number }>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ reply, afterMs: Date.now() - started });
    }),
  );
  return {
    ended,
    sent,
    stop() {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

describe('connection-level limits of the web process', () => {
  it('refuses a request head over HTTP_MAX_HEADER_BYTES with 431', async () => {
    const r = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'x-padding': 'a'.repeat(5000) } });
    expect(r.status).toBe(431);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'x-padding': 'a'.repeat(2000) } });
    expect(ok.status).toBe(200);
  });

  it('cuts off a slowloris client (headers never finish) after the headers timeout', async () => {
    const t = trickle('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-a: b\r\n', 300);
    const { reply, afterMs } = await t.ended;
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    // 2 s timeout, checked every second: cut off within about 3 s, not Node's default minute.
    expect(afterMs).toBeGreaterThanOrEqual(1900);
    expect(afterMs).toBeLessThan(4500);
  });

  it('cuts off a client that trickles its body after the request timeout', async () => {
    const head = 'POST /api/v1/provenance/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';
    const t = trickle(head, '{"url":"https://example.com/"}          ', 300);
    const { reply, afterMs } = await t.ended;
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    expect(afterMs).toBeGreaterThanOrEqual(3900);
    expect(afterMs).toBeLessThan(6500);
  });

  it('keeps serving others while 200 slowloris connections are open', async () => {
    const crowd = Array.from({ length: 200 }, () => trickle('GET / HTTP/1.1\r\nHost: x\r\n', 'Y: z\r\n', 500));
    await Promise.all(crowd.map((c) => c.sent));
    const t0 = Date.now();
    for (let i = 0; i < 10; i++) {
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/news/`);
      expect(r.status).toBe(200);
    }
    expect(Date.now() - t0).toBeLessThan(5000);
    const ends = await Promise.all(crowd.map((c) => c.ended));
    expect(ends.every((e) => e.afterMs < 6000)).toBe(true);
    expect(web.isRunning()).toBe(true);
  });
});
