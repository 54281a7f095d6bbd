/**
 * The WebSocket broadcaster at /ws/news/ (spec: Events). It reads the lifecycle-event stream from
 * Redis (never Postgres) and relays events to its clients:
 *
 * - handshake: Origin must equal TRUSTED_ORIGIN, else HTTP 403 before the upgrade (handshake.ts);
 * - caps: global and per-IP, taken synchronously at upgrade time; over a cap the socket is accepted
 *   and closed with 4003 and a reason (caps.ts);
 * - visibility: public events to everyone, staff-only events to connections with a staff
 *   access-token cookie, until that token expires (viewer.ts);
 * - frames: `{events, t, cursor}` batches per visibility class (batcher.ts), sponsored events at
 *   once, heartbeats (heartbeat.ts), a bounded queue per connection with `reconcile/backlog`
 *   (connection.ts), `reconcile/resubscribed` when the reader lost events (stream-reader.ts,
 *   reconcile.ts);
 * - resume by `?cursor=` (resume.ts); close code 1001 for every connection on close().
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../logger.js';
import { createRedis, type Redis } from '../redis.js';
import { Batcher } from './batcher.js';
import { ConnectionCaps } from './caps.js';
import { Connection, type ConnectionSocket } from './connection.js';
import { decodeCursor, type Cursor } from './cursor.js';
import { batchFrame, reconcileFrame, unixSeconds, wireOf, type StreamItem } from './frames.js';
import { clientIp, originAllowed, parseUpgradeUrl, rejectHandshake, WS_PATH } from './handshake.js';
import { startHeartbeat } from './heartbeat.js';
import { resume } from './resume.js';
import { StreamReader } from './stream-reader.js';
import { anonymous, viewerFromRequest, type Viewer } from './viewer.js';

export { WS_PATH };

export interface BroadcasterOptions {
  redisUrl: string;
  streamKey: string;
  trustedOrigin: string;
  log: Logger;
  /** Verifies the `access_token` cookie; without it every connection is anonymous. */
  jwtSecret?: string;
  /** Count per-IP caps by X-Forwarded-For (its right-most entry). */
  trustProxy?: boolean;
  maxConnections?: number;
  maxPerIp?: number;
  batchMs?: number;
  batchMax?: number;
  heartbeatMs?: number;
  /** Events a connection may have waiting (slow client, or catching up) before `backlog`. */
  queueMax?: number;
  /** Bytes buffered in a socket above which its client counts as slow. */
  sendBufferLimit?: number;
  /** Longest blocking XREAD; also bounds how late a lost stream with no new events is noticed. */
  readBlockMs?: number;
  /** Most events replayed to one resuming client before it is told to re-poll instead. */
  resumeMaxEvents?: number;
  /** Who a connection is; defaults to the access-token cookie checked with jwtSecret. */
  resolveViewer?: (req: http.IncomingMessage) => Promise<Viewer>;
  /** Plain HTTP requests other than /healthz go here first (the ws process's /metrics); true when answered. */
  httpHandler?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
}

export interface BroadcasterStats {
  connections: number;
  staffConnections: number;
  catchingUp: number;
  backlogs: number;
  /** Frames written to sockets since start (closed connections included). */
  framesSent: number;
  resumes: { resumed: number; reconciled: number; abandoned: number };
  reader: StreamReader['counters'] & { position: string; clientName: string };
}

export interface Broadcaster {
  server: http.Server;
  /** Resolves when the stream reader has its position: listen after this, or early clients miss events. */
  ready: Promise<void>;
  connections(): number;
  stats(): BroadcasterStats;
  /** Flush, close every connection with 1001, stop reading. */
  close(): Promise<void>;
}

/** Options from the process configuration (src/bin/ws.ts; the benchmark starts that file). */
export function broadcasterOptionsFromConfig(
  config: {
    REDIS_URL: string;
    TRUSTED_ORIGIN: string;
    JWT_SECRET: string;
    TRUST_PROXY: boolean;
    WS_MAX_CONNECTIONS: number;
    WS_MAX_PER_IP: number;
    WS_HEARTBEAT_MS: number;
    WS_BATCH_MS: number;
    WS_BATCH_MAX: number;
    WS_QUEUE_MAX: number;
  },
  streamKey: string,
  log: Logger,
): BroadcasterOptions {
  return {
    redisUrl: config.REDIS_URL,
    streamKey,
    trustedOrigin: config.TRUSTED_ORIGIN,
    log,
    jwtSecret: config.JWT_SECRET,
    trustProxy: config.TRUST_PROXY,
    maxConnections: config.WS_MAX_CONNECTIONS,
    maxPerIp: config.WS_MAX_PER_IP,
    heartbeatMs: config.WS_HEARTBEAT_MS,
    batchMs: config.WS_BATCH_MS,
    batchMax: config.WS_BATCH_MAX,
    queueMax: config.WS_QUEUE_MAX,
  };
}

let instances = 0;

export function createBroadcaster(opts: BroadcasterOptions): Broadcaster {
  const log = opts.log;
  const batchOpts = { batchMs: opts.batchMs ?? 200, batchMax: opts.batchMax ?? 10 };
  const connOpts = { queueMax: opts.queueMax ?? 1000, sendBufferLimit: opts.sendBufferLimit ?? 512 * 1024 };
  const caps = new ConnectionCaps({ maxTotal: opts.maxConnections ?? 500, maxPerIp: opts.maxPerIp ?? 5 });
  const resolveViewer = opts.resolveViewer ?? ((req) => viewerFromRequest(req, opts.jwtSecret));
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096, perMessageDeflate: false, clientTracking: false });

  const sockets = new Map<Connection, WebSocket>();
  const publicConns = new Set<Connection>();
  const staffConns = new Set<Connection>();
  const resumes = { resumed: 0, reconciled: 0, abandoned: 0 };
  let backlogsOfClosed = 0;
  let framesSentOfClosed = 0;
  let closing = false;

  const fanOut = (members: Set<Connection>) => (items: readonly StreamItem[], cursor: Cursor, t: number) => {
    if (members.size === 0) return;
    const frame = batchFrame(items, cursor, t);
    for (const c of members) c.deliver(frame);
  };
  const publicBatcher = new Batcher(batchOpts, fanOut(publicConns));
  const staffBatcher = new Batcher(batchOpts, fanOut(staffConns));

  const clientName = `ws-reader-${process.pid}-${++instances}`;
  const readerRedis: Redis = createRedis(opts.redisUrl, 'blocking', clientName);
  const historyRedis: Redis = createRedis(opts.redisUrl, 'command', `ws-history-${process.pid}-${instances}`);
  const reader = new StreamReader({
    redis: readerRedis,
    streamKey: opts.streamKey,
    log,
    blockMs: opts.readBlockMs,
    onItems(items) {
      for (const item of items) {
        staffBatcher.push(item);
        if (!item.staffOnly) publicBatcher.push(item);
      }
    },
    onLoss() {
      // What was read before the gap goes out first, then the reconcile, then what follows.
      publicBatcher.flush();
      staffBatcher.flush();
      const frame = reconcileFrame('resubscribed');
      for (const c of sockets.keys()) c.deliver(frame);
    },
  });

  const heartbeat = startHeartbeat(opts.heartbeatMs ?? 25_000, () => sockets.keys());

  const server = http.createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', connections: sockets.size }));
      return;
    }
    if (opts.httpHandler?.(req, res)) return;
    res.writeHead(426, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'upgrade_required', message: `connect with WebSocket to ${WS_PATH}`, details: null } }));
  });

  server.on('upgrade', (req: http.IncomingMessage, socket, head) => {
    socket.on('error', () => undefined);
    const target = parseUpgradeUrl(req.url);
    if (target.path !== WS_PATH) return rejectHandshake(socket, 404, 'not_found', `the stream is at ${WS_PATH}`);
    if (!originAllowed(req.headers.origin, opts.trustedOrigin)) {
      return rejectHandshake(socket, 403, 'origin_not_allowed', `Origin must be ${opts.trustedOrigin}`);
    }
    if (closing) return rejectHandshake(socket, 503, 'unavailable', 'server going away');
    // Synchronous from here to acquire(): no other upgrade can run in between.
    const slot = caps.acquire(clientIp(req, opts.trustProxy ?? false));
    if (!slot.ok) {
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('error', () => undefined);
        ws.close(4003, slot.reason);
      });
      return;
    }
    // The slot lives exactly as long as the TCP connection, whatever happens below.
    socket.once('close', slot.release);
    resolveViewer(req)
      .catch(() => anonymous)
      .then((viewer) => {
        wss.handleUpgrade(req, socket, head, (ws) => attach(ws, socket, viewer, target.cursor));
      });
  });

  function attach(ws: WebSocket, socket: Duplex, viewer: Viewer, cursorText: string | null) {
    ws.on('error', () => undefined);
    if (closing) {
      ws.close(1001, 'server going away');
      return;
    }
    const adapter: ConnectionSocket = {
      get bufferedAmount() {
        return ws.bufferedAmount;
      },
      isOpen: () => ws.readyState === ws.OPEN,
      // The frame's bytes are framed once for all clients (frames.ts wireOf) and written to the TCP
      // socket ws itself writes to: with permessage-deflate off, ws's sender writes synchronously
      // and never queues, so the order with its own pings and close frames is kept, and
      // ws.bufferedAmount still counts these bytes (it reads the socket's write buffer).
      send: (frame) => void socket.write(wireOf(frame)),
      ping: () => ws.ping(),
      terminate: () => ws.terminate(),
    };
    const conn = new Connection(adapter, connOpts, { staff: viewer.staff, mode: cursorText === null ? 'live' : 'catching_up' });
    sockets.set(conn, ws);
    // Join the class before any history read (resume.ts explains why).
    (viewer.staff ? staffConns : publicConns).add(conn);

    let expiry: NodeJS.Timeout | null = null;
    if (viewer.staff && viewer.staffUntilMs !== null) {
      expiry = setTimeout(() => downgrade(conn), Math.min(Math.max(0, viewer.staffUntilMs - Date.now()), 2 ** 31 - 1));
    }
    ws.on('pong', () => conn.pong());
    ws.on('close', () => {
      if (expiry) clearTimeout(expiry);
      backlogsOfClosed += conn.counters.backlogs;
      framesSentOfClosed += conn.counters.framesSent;
      conn.close();
      sockets.delete(conn);
      publicConns.delete(conn);
      staffConns.delete(conn);
    });

    if (cursorText !== null) {
      resume(conn, decodeCursor(cursorText), {
        redis: historyRedis,
        streamKey: opts.streamKey,
        batchMax: batchOpts.batchMax,
        maxEvents: opts.resumeMaxEvents,
      }).then(
        (outcome) => resumes[outcome]++,
        (err) => {
          log.warn({ err: (err as Error).message }, 'resume failed; client told to reconcile');
          resumes.reconciled++;
          conn.finishCatchUp(null, 'resubscribed');
        },
      );
    }
  }

  /** A staff token expired on an open connection: it continues as a public one (viewer.ts). */
  function downgrade(conn: Connection) {
    if (!staffConns.delete(conn)) return;
    conn.downgrade();
    // Public events the staff class holds for its next batch would otherwise never reach it.
    const pending = staffBatcher.pendingItems().filter((i) => !i.staffOnly);
    const last = staffBatcher.lastId();
    if (pending.length > 0 && last) conn.deliver(batchFrame(pending, { upTo: last, also: [] }, unixSeconds()));
    // ...and the public class's frames must not repeat what it already got as staff.
    if (last) conn.deliver({ kind: 'skip', through: last });
    publicConns.add(conn);
  }

  return {
    server,
    ready: reader.ready,
    connections: () => sockets.size,
    stats() {
      let catchingUp = 0;
      let backlogs = backlogsOfClosed;
      let framesSent = framesSentOfClosed;
      for (const c of sockets.keys()) {
        if (c.mode === 'catching_up') catchingUp++;
        backlogs += c.counters.backlogs;
        framesSent += c.counters.framesSent;
      }
      return {
        connections: sockets.size,
        staffConnections: staffConns.size,
        catchingUp,
        backlogs,
        framesSent,
        resumes: { ...resumes },
        reader: { ...reader.counters, position: reader.position().id, clientName },
      };
    },
    async close() {
      if (closing) return;
      closing = true;
      heartbeat.stop();
      await reader.stop();
      publicBatcher.flush();
      staffBatcher.flush();
      publicBatcher.close();
      staffBatcher.close();
      for (const ws of sockets.values()) ws.close(1001, 'server going away');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Give clients a moment to answer the close frame, then drop the rest.
      const until = Date.now() + 1000;
      while (sockets.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      for (const ws of sockets.values()) ws.terminate();
      historyRedis.disconnect();
      await closed;
    },
  };
}
