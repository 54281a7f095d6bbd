/**
 * The stream reader's lean connection for reads while events flow (src/stream/range-connection.ts):
 * what it reads from a real Redis equals what ioredis reads, it speaks the handshake a URL asks for,
 * it survives replies split anywhere, and every failure rejects the read (and the reader then reads
 * through ioredis, losing nothing).
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { encodeCommand, parseValue, RangeConnection, RangeReplyError } from '../../src/stream/range-connection.js';
import { StreamReader } from '../../src/stream/stream-reader.js';
import type { StreamItem } from '../../src/stream/rules/frames.js';
import { createLogger } from '../../src/platform/logger.js';
import { createRedis, type Redis } from '../../src/platform/redis.js';
import { makeEvent, waitUntil } from '../support/broadcaster-harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const log = createLogger('test-range', 'silent');
let redis: Redis;
let n = 0;
const key = () => `range-test:${process.pid}:${++n}`;

beforeAll(() => {
  redis = createRedis(inject('redisUrl'), 'command', 'test-range');
});
afterAll(() => redis.quit());

const TLS = { cert: readFileSync(path.join(here, '../data/tls/localhost-cert.pem')), key: readFileSync(path.join(here, '../data/tls/localhost-key.pem')) };

/**
 * A RESP server on 127.0.0.1 that records what it receives and answers with `reply(commands so far)`;
 * over TLS (the self-signed certificate of test/data/tls, for localhost and 127.0.0.1) with `secure`.
 */
async function fakeRedis(reply: (received: string[][], socket: net.Socket) => void, secure = false) {
  const received: string[][] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const onSocket = (socket: net.Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const got = parseValue(buf, 0);
        if (!got) break;
        buf = buf.subarray(got[1]);
        received.push(got[0] as string[]);
        reply(received, socket);
      }
    });
  };
  const server = secure ? tls.createServer(TLS, onSocket) : net.createServer(onSocket);
  // A client that gives up on the certificate resets the TLS handshake.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    received,
    connections: () => connections,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const XRANGE_REPLY = '*1\r\n*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\ne\r\n$6\r\nh\u00e9llo\r\n';

describe('RESP parsing', () => {
  it('reads every RESP2 type the connection can meet, and waits for the rest of a split value', () => {
    const whole = Buffer.from('*4\r\n+OK\r\n:42\r\n$-1\r\n*2\r\n$4\r\nab\u00e7\r\n*-1\r\n');
    expect(parseValue(whole, 0)).toEqual([['OK', 42, null, ['abç', null]], whole.length]);
    for (let cut = 0; cut < whole.length; cut++) expect(parseValue(whole.subarray(0, cut), 0)).toBeNull();
    const err = parseValue(Buffer.from('-ERR no such key\r\n'), 0)!;
    expect(err[0]).toBeInstanceOf(RangeReplyError);
    expect((err[0] as Error).message).toBe('ERR no such key');
    expect(() => parseValue(Buffer.from('?what\r\n'), 0)).toThrow(/unexpected RESP type/);
  });

  it('encodes a command as an array of bulk strings, lengths in bytes', () => {
    expect(encodeCommand(['XRANGE', 'k\u00e9', '0-0']).toString()).toBe('*3\r\n$6\r\nXRANGE\r\n$3\r\nk\u00e9\r\n$3\r\n0-0\r\n');
  });
});

describe('against Redis', () => {
  it('reads what ioredis reads (ids, fields, UTF-8 values, COUNT, inclusive start)', async () => {
    const k = key();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await redis.xadd(k, '*', 'e', JSON.stringify({ headline: `Ünïcødé ${i} 🚀` }), 't', 'news.approved', 'i', String(i)))!);
    const conn = new RangeConnection(inject('redisUrl'), 'test-range-conn');
    try {
      for (const [start, count] of [
        [ids[0], 30],
        [ids[5], 10],
        [ids[29], 5],
        ['0-0', 1],
      ] as const) {
        expect(await conn.xrange(k, start, count)).toEqual(await redis.xrange(k, start, '+', 'COUNT', count));
      }
      expect(await conn.xrange(`${k}:missing`, '0-0', 10)).toEqual([]);
      // One connection for all of them, named as asked.
      const list = (await redis.client('LIST')) as string;
      expect(list.split('\n').filter((l) => l.includes(' name=test-range-conn '))).toHaveLength(1);
    } finally {
      conn.close();
    }
  });

  it('rejects a read on a key of another type with the Redis error, then reads on a new connection', async () => {
    const k = key();
    await redis.set(`${k}:str`, 'x');
    await redis.xadd(k, '*', 'e', '{}');
    const conn = new RangeConnection(inject('redisUrl'), 'test-range-wrongtype');
    try {
      await expect(conn.xrange(`${k}:str`, '0-0', 10)).rejects.toThrow(/WRONGTYPE/);
      expect(await conn.xrange(k, '0-0', 10)).toHaveLength(1);
    } finally {
      conn.close();
    }
  });
});

describe('handshake and failures (a local RESP server)', () => {
  it('sends AUTH with the URL user and password, SELECT and CLIENT SETNAME once, before the first read only', async () => {
    const srv = await fakeRedis((got, s) => s.write(got[got.length - 1][0] === 'XRANGE' ? XRANGE_REPLY : '+OK\r\n'));
    const conn = new RangeConnection(`redis://reader:p%40ss@127.0.0.1:${srv.port}/3`, 'ws-reader-x-range');
    try {
      expect(await conn.xrange('events', '0-0', 5)).toEqual([['1-1', ['e', 'héllo']]]);
      expect(await conn.xrange('events', '1-1', 5)).toHaveLength(1);
      expect(srv.received).toEqual([
        ['AUTH', 'reader', 'p@ss'],
        ['SELECT', '3'],
        ['CLIENT', 'SETNAME', 'ws-reader-x-range'],
        ['XRANGE', 'events', '0-0', '+', 'COUNT', '5'],
        ['XRANGE', 'events', '1-1', '+', 'COUNT', '5'],
      ]);
      expect(srv.connections()).toBe(1);
    } finally {
      conn.close();
      await srv.close();
    }
  });

  it('sends AUTH with the password alone when the URL has no user, and no SELECT for database 0', async () => {
    const srv = await fakeRedis((got, s) => s.write(got[got.length - 1][0] === 'XRANGE' ? '*0\r\n' : '+OK\r\n'));
    const conn = new RangeConnection(`redis://:secret@127.0.0.1:${srv.port}/0`, 'n');
    try {
      expect(await conn.xrange('events', '0-0', 5)).toEqual([]);
      expect(srv.received.map((c) => c[0])).toEqual(['AUTH', 'CLIENT', 'XRANGE']);
      expect(srv.received[0]).toEqual(['AUTH', 'secret']);
    } finally {
      conn.close();
      await srv.close();
    }
  });

  it('speaks TLS for rediss: URLs and checks the certificate as ioredis does', async () => {
    const srv = await fakeRedis((got, s) => s.write(got[got.length - 1][0] === 'XRANGE' ? XRANGE_REPLY : '+OK\r\n'), true);
    const trusting = new RangeConnection(`rediss://:pw@localhost:${srv.port}`, 'n', { tls: { ca: TLS.cert } });
    const strict = new RangeConnection(`rediss://localhost:${srv.port}`, 'n');
    try {
      expect(await trusting.xrange('events', '0-0', 5)).toEqual([['1-1', ['e', 'héllo']]]);
      expect(srv.received.map((c) => c[0])).toEqual(['AUTH', 'CLIENT', 'XRANGE']);
      // Without the CA the self-signed certificate is refused: nothing is sent in the clear.
      await expect(strict.xrange('events', '0-0', 5)).rejects.toThrow(/self[- ]signed/);
      expect(srv.received).toHaveLength(3);
    } finally {
      trusting.close();
      strict.close();
      await srv.close();
    }
  });

  it('reads a reply that arrives a byte at a time', async () => {
    const srv = await fakeRedis((got, s) => {
      const bytes = Buffer.from(got[got.length - 1][0] === 'XRANGE' ? XRANGE_REPLY : '+OK\r\n');
      if (got[got.length - 1][0] !== 'XRANGE') return s.write(bytes);
      let i = 0;
      const t = setInterval(() => (i < bytes.length ? s.write(bytes.subarray(i, ++i)) : clearInterval(t)), 1);
    });
    const conn = new RangeConnection(`redis://127.0.0.1:${srv.port}`, 'n');
    try {
      expect(await conn.xrange('events', '0-0', 5)).toEqual([['1-1', ['e', 'héllo']]]);
    } finally {
      conn.close();
      await srv.close();
    }
  });

  it('rejects when the handshake is refused (wrong password), and does not read', async () => {
    const srv = await fakeRedis((got, s) =>
      s.write(got[got.length - 1][0] === 'AUTH' ? '-WRONGPASS invalid username-password pair\r\n' : got[got.length - 1][0] === 'XRANGE' ? XRANGE_REPLY : '+OK\r\n'),
    );
    const conn = new RangeConnection(`redis://:bad@127.0.0.1:${srv.port}`, 'n');
    try {
      await expect(conn.xrange('events', '0-0', 5)).rejects.toThrow(/WRONGPASS/);
    } finally {
      conn.close();
      await srv.close();
    }
  });

  it('rejects when no reply comes in time, when the server closes mid-reply and when nothing listens; the next read reconnects', async () => {
    let mode: 'silent' | 'half' | 'ok' = 'silent';
    const srv = await fakeRedis((got, s) => {
      if (got[got.length - 1][0] !== 'XRANGE') return s.write('+OK\r\n');
      if (mode === 'half') {
        s.write(XRANGE_REPLY.slice(0, 20));
        s.destroy();
      } else if (mode === 'ok') s.write(XRANGE_REPLY);
    });
    const conn = new RangeConnection(`redis://127.0.0.1:${srv.port}`, 'n', { timeoutMs: 200 });
    try {
      await expect(conn.xrange('events', '0-0', 5)).rejects.toThrow(/no reply to XRANGE within 200 ms/);
      mode = 'half';
      await expect(conn.xrange('events', '0-0', 5)).rejects.toThrow(/closed/);
      mode = 'ok';
      expect(await conn.xrange('events', '0-0', 5)).toHaveLength(1);
      expect(srv.connections()).toBe(3);
    } finally {
      conn.close();
      await srv.close();
    }
    const dead = new RangeConnection(`redis://127.0.0.1:${srv.port}`, 'n');
    await expect(dead.xrange('events', '0-0', 5)).rejects.toThrow(/ECONNREFUSED/);
    dead.close();
    await expect(dead.xrange('events', '0-0', 5)).rejects.toThrow(/closed/);
  });
});

describe('the reader with a lean connection', () => {
  it('reads every event in order, and through ioredis when the lean connection cannot reach Redis', async () => {
    const k = key();
    await redis.xadd(k, '*', 'e', JSON.stringify(makeEvent('news.approved', 0)));
    const unreachable = await fakeRedis(() => undefined);
    await unreachable.close();
    // Accepts connections and answers every command with an error.
    const refusing = await fakeRedis((_got, s) => s.write('-ERR not today\r\n'));
    for (const range of [
      new RangeConnection(inject('redisUrl'), 'test-range-reader'),
      new RangeConnection(`redis://127.0.0.1:${unreachable.port}`, 'n', { timeoutMs: 200 }),
      new RangeConnection(`redis://127.0.0.1:${refusing.port}`, 'n', { timeoutMs: 200 }),
    ]) {
      const got: StreamItem[] = [];
      let losses = 0;
      const reader = new StreamReader({
        redis: createRedis(inject('redisUrl'), 'blocking', 'test-range-blocking'),
        range,
        streamKey: k,
        log,
        lingerMs: 30,
        blockMs: 500,
        onItems: (items) => got.push(...items),
        onLoss: () => losses++,
      });
      await reader.ready;
      const start = Number((await redis.xlen(k)) - 1);
      for (let i = 1; i <= 40; i++) {
        await redis.xadd(k, '*', 'e', JSON.stringify(makeEvent('news.approved', start + i)));
        // A real wait on purpose: events arrive in groups spread over time, so reads happen while they flow.
        if (i % 4 === 0) await new Promise((r) => setTimeout(r, 15));
      }
      await waitUntil(() => got.length === 40, '40 events read');
      await reader.stop();
      expect(got.map((i) => (JSON.parse(i.json) as { id: number }).id)).toEqual(Array.from({ length: 40 }, (_, i) => start + i + 1));
      expect(losses).toBe(0);
      expect(reader.counters.rangeReads).toBeGreaterThan(0);
      if (range.name === 'n') expect(reader.counters.rangeFallbacks).toBe(reader.counters.rangeReads);
      else expect(reader.counters.rangeFallbacks).toBe(0);
    }
    // After its failure the lean connection was left alone (backing off), not reopened for every read.
    expect(refusing.connections()).toBe(1);
    await refusing.close();
  });
});
