/**
 * The web process (as the Procfile starts it) against hostile clients at the connection level:
 * a request head over HTTP_MAX_HEADER_BYTES is refused with 431; a client that trickles its
 * headers (slowloris) or its body is cut off after HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS;
 * and a crowd of such clients does not stop others from being served.
 */
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/services.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { startProcfileType, waitForHttp, type Proc } from '../../scripts/lib/harness.js';

let env: TestEnv;
let web: Proc;
let port: number;

beforeAll(async () => {
  port = await freePort();
  env = await createTestEnv({
    PORT: String(port),
    BODY_LIMIT_BYTES: '4096',
    HTTP_MAX_HEADER_BYTES: '4096',
    HTTP_HEADERS_TIMEOUT_MS: '2000',
    HTTP_REQUEST_TIMEOUT_MS: '4000',
    LOG_LEVEL: 'warn',
  });
  web = startProcfileType('web', env.env, { prebuilt: true });
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

  it.each([
    ['chunked', ''],
    ['gzip, chunked', 'Content-Encoding: gzip\r\n'],
    ['deflate, chunked', 'Content-Encoding: deflate\r\n'],
  ])('a body refused part-way (413 on a %s body) does not wedge the keep-alive connection', async (_kind, encoding) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    let reply = '';
    socket.on('data', (d) => (reply += d.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const plain = Buffer.from(`{"text":"${'x'.repeat(200_000)}"}`);
    const body = encoding.includes('gzip') ? zlib.gzipSync(plain) : encoding ? zlib.deflateSync(plain) : plain.subarray(0, 8000);
    socket.write(`POST /api/v1/provenance/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${encoding}Transfer-Encoding: chunked\r\n\r\n`);
    socket.write(Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]));
    const until = Date.now() + 5000;
    while (!reply.includes('payload_too_large') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(reply).toMatch(/^HTTP\/1\.1 413/);
    // The client finishes its body and asks again on the same connection: it gets an answer or the
    // connection is closed at once, never a 408 after the request timeout.
    const asked = Date.now();
    socket.write('0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const second = await Promise.race([
      closed.then(() => 'closed'),
      (async () => {
        while (!/HTTP\/1\.1 (?!413)\d{3}/.test(reply.slice(reply.indexOf('payload_too_large')))) await new Promise((r) => setTimeout(r, 20));
        return 'answered';
      })(),
    ]);
    expect(Date.now() - asked).toBeLessThan(1000);
    if (second === 'answered') expect(reply.slice(reply.indexOf('payload_too_large'))).toContain('HTTP/1.1 200');
    socket.destroy();
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
