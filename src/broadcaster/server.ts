/**
 * The WebSocket broadcaster at /ws/news/. It reads the lifecycle-event stream from Redis (never
 * Postgres) and relays events to connected clients: Origin checked before the upgrade (403),
 * public events to everyone and staff-only events to staff connections, normal events coalesced
 * into {events, t} batches (flushed every BATCH_MS or at BATCH_MAX events), heartbeats, and close
 * code 1001 for every connection on shutdown.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { isStaffOnly, type NewsEvent } from '../events.js';
import type { Logger } from '../logger.js';
import { createRedis, type Redis } from '../redis.js';

export interface BroadcasterOptions {
  redisUrl: string;
  streamKey: string;
  trustedOrigin: string;
  log: Logger;
  batchMs?: number;
  batchMax?: number;
  heartbeatMs?: number;
  /** Decide whether a connection is staff (from its upgrade request); default: nobody is. */
  isStaff?: (req: http.IncomingMessage) => Promise<boolean> | boolean;
}

interface Conn {
  ws: WebSocket;
  staff: boolean;
  pending: NewsEvent[];
  timer: NodeJS.Timeout | null;
}

export const WS_PATH = '/ws/news/';

export function createBroadcaster(opts: BroadcasterOptions) {
  const batchMs = opts.batchMs ?? 200;
  const batchMax = opts.batchMax ?? 10;
  const heartbeatMs = opts.heartbeatMs ?? 25_000;
  const conns = new Set<Conn>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096 });

  const server = http.createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', connections: conns.size }));
      return;
    }
    res.writeHead(426, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'upgrade_required', message: `connect with WebSocket to ${WS_PATH}`, details: null } }));
  });

  function reject(socket: Duplex, status: number, code: string, message: string) {
    const body = JSON.stringify({ error: { code, message, details: null } });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  server.on('upgrade', async (req, socket, head) => {
    socket.on('error', () => undefined);
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_PATH) return reject(socket, 404, 'not_found', `the stream is at ${WS_PATH}`);
    if (req.headers.origin !== opts.trustedOrigin) {
      return reject(socket, 403, 'origin_not_allowed', `Origin must be ${opts.trustedOrigin}`);
    }
    let staff = false;
    try {
      staff = (await opts.isStaff?.(req)) ?? false;
    } catch {
      staff = false;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn: Conn = { ws, staff, pending: [], timer: null };
      conns.add(conn);
      ws.on('close', () => {
        if (conn.timer) clearTimeout(conn.timer);
        conns.delete(conn);
      });
      ws.on('error', () => undefined);
    });
  });

  function flush(conn: Conn) {
    if (conn.timer) clearTimeout(conn.timer);
    conn.timer = null;
    if (conn.pending.length === 0) return;
    const events = conn.pending;
    conn.pending = [];
    send(conn, { events, t: Math.floor(Date.now() / 1000) });
  }

  function send(conn: Conn, frame: unknown) {
    if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify(frame));
  }

  function deliver(event: NewsEvent) {
    const staffOnly = isStaffOnly(event.type);
    for (const conn of conns) {
      if (staffOnly && !conn.staff) continue;
      if (event.type === 'news.sponsored') {
        // Sponsored events go out at once, in their own frame, ahead of the pending batch.
        send(conn, { events: [event], t: Math.floor(Date.now() / 1000) });
        continue;
      }
      conn.pending.push(event);
      if (conn.pending.length >= batchMax) flush(conn);
      else conn.timer ??= setTimeout(() => flush(conn), batchMs);
    }
  }

  const heartbeat = setInterval(() => {
    for (const conn of conns) send(conn, { type: 'heartbeat' });
  }, heartbeatMs);

  // Stream reader: a dedicated blocking connection, starting at the stream's end.
  let reader: Redis | null = null;
  let running = true;
  async function readLoop() {
    reader = createRedis(opts.redisUrl, 'blocking', 'ws-reader');
    let lastId = '$';
    while (running) {
      try {
        const res = (await reader.xread('COUNT', 500, 'BLOCK', 2000, 'STREAMS', opts.streamKey, lastId)) as
          | [string, [string, string[]][]][]
          | null;
        if (!res) continue;
        for (const [, entries] of res) {
          for (const [id, fields] of entries) {
            lastId = id;
            const raw = fields[fields.indexOf('e') + 1];
            try {
              deliver(JSON.parse(raw) as NewsEvent);
            } catch (err) {
              opts.log.warn({ id, err: (err as Error).message }, 'unparseable event skipped');
            }
          }
        }
      } catch (err) {
        if (!running) break;
        opts.log.warn({ err: (err as Error).message }, 'event stream read failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }
  const loop = readLoop();

  return {
    server,
    connections: () => conns.size,
    async close() {
      running = false;
      clearInterval(heartbeat);
      for (const conn of conns) {
        flush(conn);
        conn.ws.close(1001, 'server going away');
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Give clients a moment to answer the close frame, then drop the rest.
      const until = Date.now() + 1000;
      while (conns.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      for (const conn of conns) conn.ws.terminate();
      reader?.disconnect();
      await loop.catch(() => undefined);
      await closed;
    },
  };
}
