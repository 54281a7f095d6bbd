/**
 * Hostile input against the ws process (a real OS process, as the Procfile starts it): random
 * upgrade requests over raw TCP (paths, Origin, keys, versions, cookies, cursors, odd headers) and
 * random client frames on open connections (text, binary, oversized, malformed frames written
 * byte by byte). The process must answer every handshake with a status (never a 5xx other than
 * 503 while closing, never a hang), never crash, and afterwards still deliver events to a client.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import fc from '../support/property.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../scripts/lib/services.js';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { createRedis, type Redis } from '../../src/platform/redis.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { encodeSegment, NASTY_STRINGS } from '../support/fuzz-http.js';
import { startProcfileType, waitForHttp, type Proc } from '../../scripts/lib/harness.js';

const ORIGIN = 'http://127.0.0.1:8000';
let env: TestEnv;
let ws: Proc;
let port: number;
let redis: Redis;
const tally = { handshakes: 0, statuses: {} as Record<string, number>, frameSessions: 0, frames: 0, closeCodes: {} as Record<string, number> };
const localAddress = () => `127.0.0.${2 + Math.floor(Math.random() * 252)}`;

beforeAll(async () => {
  port = await freePort();
  env = await createTestEnv({ WS_PORT: String(port), TRUSTED_ORIGIN: ORIGIN, WS_MAX_PER_IP: '1000', WS_MAX_CONNECTIONS: '2000', LOG_LEVEL: 'warn' });
  redis = createRedis(env.redisUrl, 'command', 'fuzz-ws');
  ws = startProcfileType('ws', env.env, { prebuilt: true });
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, [ws], 120_000);
}, 150_000);

afterAll(async () => {
  console.log(
    `[fuzz-ws] ${tally.handshakes} raw handshakes (${Object.entries(tally.statuses)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}); ` +
      `${tally.frameSessions} connections sent ${tally.frames} random frames (close codes ${Object.entries(tally.closeCodes)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')})`,
  );
  await ws?.stop('SIGTERM');
  redis?.disconnect();
  await env?.cleanup();
});

/** Write `head` on a fresh TCP connection; resolve with the status code of the reply (0: closed without one). */
function rawHandshake(head: Buffer, timeoutMs = 10_000): Promise<{ status: number; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: localAddress() });
    let buf = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${JSON.stringify(head.subarray(0, 200).toString('latin1'))}`));
    }, timeoutMs);
    const done = (status: number) => {
      clearTimeout(timer);
      resolve({ status, socket });
    };
    socket.on('error', () => undefined);
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(buf);
      if (m) done(Number(m[1]));
    });
    socket.on('close', () => done(0));
    socket.write(head);
  });
}

const headerValue = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS.filter((s) => !/[\r\n\u0000-\u001f\u007f-\uffff]/.test(s))),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, '')),
);
/** Mostly the valid value (so later checks are reached), sometimes anything else, sometimes absent. */
const mostly = <T>(valid: T, other: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(valid) }, { weight: 1, arbitrary: other }, { weight: 1, arbitrary: fc.constant(undefined) });
const handshakeArb = fc.record({
  path: fc.oneof(
    { weight: 4, arbitrary: fc.constant('/ws/news/') },
    { weight: 1, arbitrary: fc.constant('/ws/news') },
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }).map((c) => `/ws/news/?cursor=${encodeSegment(c, false)}`) },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_STRINGS).map((c) => `/ws/news/?cursor=${encodeSegment(c, false)}&cursor=x`) },
    { weight: 2, arbitrary: fc.constantFrom('/', '/ws/', '/healthz', '/metrics', '//ws//news//', '/ws/news/%', '/ws/news/?%ZZ', '*', 'http://evil/ws/news/') },
  ),
  origin: mostly<string | undefined>(ORIGIN, fc.oneof(fc.constant(ORIGIN + '/'), fc.constant('null'), fc.webUrl(), headerValue)),
  upgrade: mostly<string | undefined>('websocket', fc.constantFrom('WebSocket', 'h2c', '', 'websocket, h2c')),
  connection: mostly<string | undefined>('Upgrade', fc.constantFrom('upgrade, keep-alive', 'close', 'keep-alive')),
  key: mostly<string | undefined>(randomBytes(16).toString('base64'), headerValue),
  version: mostly<string | undefined>('13', fc.constantFrom('8', '0', '99999999999', 'x')),
  cookie: fc.option(
    fc.oneof(
      fc.constant('access_token=' + 'a'.repeat(2000)),
      headerValue.map((v) => `access_token=${v}`),
    ),
    { nil: undefined },
  ),
  extra: fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as [string, string][]) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.tuple(fc.constantFrom('X-Forwarded-For', 'Sec-WebSocket-Extensions', 'Sec-WebSocket-Protocol', 'Host', 'Content-Length', 'Transfer-Encoding'), headerValue),
        { maxLength: 3 },
      ),
    },
  ),
  method: fc.constantFrom('GET', 'GET', 'GET', 'GET', 'POST', 'HEAD'),
});

describe('fuzz: WebSocket handshakes and frames', () => {
  it('answers every random upgrade request with a status, never a 5xx, never hangs', async () => {
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(handshakeArb, async (h) => {
        const lines = [`${h.method} ${h.path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
        if (h.upgrade !== undefined) lines.push(`Upgrade: ${h.upgrade}`);
        if (h.connection !== undefined) lines.push(`Connection: ${h.connection}`);
        if (h.key !== undefined) lines.push(`Sec-WebSocket-Key: ${h.key}`);
        if (h.version !== undefined) lines.push(`Sec-WebSocket-Version: ${h.version}`);
        if (h.origin !== undefined) lines.push(`Origin: ${h.origin}`);
        if (h.cookie !== undefined) lines.push(`Cookie: ${h.cookie}`);
        for (const [k, v] of h.extra) lines.push(`${k}: ${v}`);
        const { status, socket } = await rawHandshake(Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'));
        tally.handshakes++;
        tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
        socket.destroy();
        if (status >= 500) failures.push(`${status} for ${JSON.stringify(lines).slice(0, 300)}`);
        if (status === 101 && h.origin !== ORIGIN) failures.push(`upgraded without the trusted Origin: ${JSON.stringify(lines).slice(0, 300)}`);
        return true;
      }),
      { numRuns: 400 },
    );
    expect(failures).toEqual([]);
    expect(tally.statuses['101']).toBeGreaterThan(0);
    expect(ws.isRunning()).toBe(true);
  }, 300_000);

  it('survives random and malformed client frames', async () => {
    const frameArb = fc.array(
      fc.oneof(
        fc.string({ maxLength: 100 }).map((s) => ({ kind: 'text' as const, data: s })),
        fc.jsonValue({ maxDepth: 2 }).map((v) => ({ kind: 'text' as const, data: JSON.stringify(v) ?? 'null' })),
        fc.uint8Array({ maxLength: 200 }).map((b) => ({ kind: 'binary' as const, data: Buffer.from(b) })),
        fc.constant({ kind: 'binary' as const, data: randomBytes(5000) }), // over maxPayload (4096): 1009
        fc.constant({ kind: 'ping' as const, data: Buffer.from('p') }),
        fc
          .constantFrom(
            // Raw frames: unmasked client frame, reserved bits, unknown opcode, fragmented ping, invalid UTF-8 text, lying length.
            Buffer.from([0x81, 0x02, 0x68, 0x69]),
            Buffer.from([0xf1, 0x80, 0, 0, 0, 0]),
            Buffer.from([0x83, 0x80, 1, 2, 3, 4]),
            Buffer.from([0x09, 0x80, 1, 2, 3, 4]),
            Buffer.from([0x81, 0x82, 0, 0, 0, 0, 0xc3, 0x28]),
            Buffer.from([0x82, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4]),
          )
          .map((raw) => ({ kind: 'raw' as const, data: raw })),
      ),
      { minLength: 1, maxLength: 8 },
    );
    await fc.assert(
      fc.asyncProperty(frameArb, async (frames) => {
        const client = new WebSocket(`ws://127.0.0.1:${port}/ws/news/`, { origin: ORIGIN, localAddress: localAddress() });
        client.on('error', () => undefined);
        await new Promise<void>((resolve, reject) => {
          client.once('open', () => resolve());
          client.once('unexpected-response', (_q, res) => reject(new Error(`refused ${res.statusCode}`)));
        });
        tally.frameSessions++;
        const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
        for (const f of frames) {
          if (client.readyState !== WebSocket.OPEN) break;
          tally.frames++;
          if (f.kind === 'text') client.send(f.data);
          else if (f.kind === 'binary') client.send(f.data, { binary: true });
          else if (f.kind === 'ping') client.ping(f.data);
          else (client as unknown as { _socket: net.Socket })._socket.write(f.data);
        }
        // Let the server react, then leave. A real wait: after arbitrary bytes there is no frame the
        // server is sure to answer (a partial frame swallows a ping), so there is no condition to poll.
        await new Promise((r) => setTimeout(r, 20));
        if (client.readyState === WebSocket.OPEN) client.close(1000);
        const code = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(-1), 5000))]);
        if (code === -1) client.terminate();
        tally.closeCodes[code] = (tally.closeCodes[code] ?? 0) + 1;
        return true;
      }),
      { numRuns: 200 },
    );
    expect(ws.isRunning()).toBe(true);
  }, 300_000);

  it('still serves: a new client gets a published event, and /healthz answers', async () => {
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    const client = new WebSocket(`ws://127.0.0.1:${port}/ws/news/`, { origin: ORIGIN });
    const got = new Promise<any>((resolve) =>
      client.on('message', (d) => {
        const f = JSON.parse(String(d));
        if (f.events) resolve(f);
      }),
    );
    await new Promise((r) => client.once('open', r));
    const events = new EventPublisher(redis, eventStreamKey(env.prefix), 1000);
    await events.publish({
      type: 'news.approved',
      id: 7,
      slug: 'after-fuzz',
      status: 'approved',
      headline: 'After fuzz',
      date_posted: new Date().toISOString(),
      origin: 'manual',
      sponsored: null,
    });
    const frame = await got;
    expect(frame.events[0]).toMatchObject({ id: 7, slug: 'after-fuzz' });
    client.close();
    expect(ws.isRunning()).toBe(true);
  });
});
