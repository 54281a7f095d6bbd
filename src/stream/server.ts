/**
 * The WebSocket broadcaster at /ws/news/ (spec: Events) and its Server-Sent Events twin at
 * /sse/news/ (sse.ts). It reads the lifecycle-event stream from Redis (never Postgres) and relays
 * events to its clients:
 *
 * - handshake: Origin must equal TRUSTED_ORIGIN, else HTTP 403 before the upgrade (handshake.ts);
 *   a bad filter (`types`, `token_address`, `token_symbol`, `tag`: filter.ts) is HTTP 400;
 * - caps: global and per-IP, one pool for both transports, taken synchronously at upgrade time;
 *   over a cap the socket is accepted and closed with 4003 and a reason (caps.ts);
 * - visibility: public events to everyone, staff-only events to connections with a staff
 *   access-token cookie, until that token expires (viewer.ts);
 * - frames: `{events, t, cursor}` batches per visibility class and filter (fan-out.ts,
 *   batcher.ts), sponsored events at once, heartbeats (heartbeat.ts), a bounded queue per
 *   connection with `reconcile/backlog` (connection.ts), `reconcile/resubscribed` when the reader
 *   lost events (stream-reader.ts, reconcile.ts);
 * - resume by `?cursor=` or, on SSE, by event id (resume.ts); on close(), code 1001 for every
 *   WebSocket and the end of every SSE response.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../platform/logger.js';
import { createRedis, type Redis } from '../platform/redis.js';
import { ConnectionCaps } from './caps.js';
import { Connection, type ConnectionSocket } from './connection.js';
import { decodeCursor } from './rules/cursor.js';
import { FanOut } from './fan-out.js';
import { filterRejection, parseStreamFilter, type StreamFilter } from './rules/filter.js';
import { reconcileFrame, wireOf } from './rules/frames.js';
import { clientIp, originAllowed, parseUpgradeUrl, rejectHandshake, WS_PATH, type UpgradeTarget } from './handshake.js';
import { startHeartbeat } from './heartbeat.js';
import { resume, resumeFromEventId, type ResumeOutcome } from './resume.js';
import { handleSse, SSE_PATH, type ResumeFrom } from './sse.js';
import { RangeConnection } from './range-connection.js';
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
  /** Pause after a read that returned events (stream-reader.ts); default a tenth of batchMs, at most 20 ms. */
  readLingerMs?: number;
  /** Most events replayed to one resuming client before it is told to re-poll instead. */
  resumeMaxEvents?: number;
  /** Most stream entries an SSE resume looks back through for its Last-Event-ID (newest first). */
  resumeScanMax?: number;
  /** Base of the SSE `retry:` advice in ms (each stream gets between it and twice it). */
  sseRetryMs?: number;
  /** Who a connection is; defaults to the access-token cookie checked with jwtSecret. */
  resolveViewer?: (req: http.IncomingMessage) => Promise<Viewer>;
  /** Plain HTTP requests other than /healthz go here first (the ws process's /metrics); true when answered. */
  httpHandler?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
}

export interface BroadcasterStats {
  /** WebSocket and SSE. */
  connections: number;
  sseConnections: number;
  staffConnections: number;
  /** Connections with a filter, and the groups (class x filter) frames are built for. */
  filteredConnections: number;
  groups: number;
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

  /** Every open connection, and how to end its transport (close 1001 / end the SSE response). */
  const transports = new Map<Connection, { sse: boolean; end(): void; kill(): void }>();
  const fanOut = new FanOut(batchOpts);
  const resumes: Record<ResumeOutcome, number> = { resumed: 0, reconciled: 0, abandoned: 0 };
  let backlogsOfClosed = 0;
  let framesSentOfClosed = 0;
  let closing = false;

  const clientName = `ws-reader-${process.pid}-${++instances}`;
  const readerRedis: Redis = createRedis(opts.redisUrl, 'blocking', clientName);
  const historyRedis: Redis = createRedis(opts.redisUrl, 'command', `ws-history-${process.pid}-${instances}`);
  const reader = new StreamReader({
    redis: readerRedis,
    range: new RangeConnection(opts.redisUrl, `${clientName}-range`),
    streamKey: opts.streamKey,
    log,
    blockMs: opts.readBlockMs,
    lingerMs: opts.readLingerMs ?? Math.min(20, Math.floor(batchOpts.batchMs / 10)),
    onItems: (items) => fanOut.push(items),
    onLoss() {
      // What was read before the gap goes out first, then the reconcile, then what follows.
      fanOut.flush();
      const frame = reconcileFrame('resubscribed');
      for (const c of transports.keys()) c.deliver(frame);
    },
  });

  const heartbeat = startHeartbeat(opts.heartbeatMs ?? 25_000, () => transports.keys());
  const historyOpts = {
    redis: historyRedis,
    streamKey: opts.streamKey,
    batchMax: batchOpts.batchMax,
    maxEvents: opts.resumeMaxEvents,
    maxScan: opts.resumeScanMax,
  };

  /**
   * A new connection (either transport): it joins its group at once (before any history read,
   * resume.ts) and, with `from`, catches up. `dispose` when the transport has closed.
   */
  function open(socket: ConnectionSocket, viewer: Viewer, filter: StreamFilter | null, from: ResumeFrom | null, transport: { sse: boolean; end(): void; kill(): void }) {
    const conn = new Connection(socket, connOpts, { staff: viewer.staff, filter, mode: from === null ? 'live' : 'catching_up' });
    transports.set(conn, transport);
    fanOut.join(conn);
    let expiry: NodeJS.Timeout | null = null;
    if (viewer.staff && viewer.staffUntilMs !== null) {
      expiry = setTimeout(() => fanOut.downgrade(conn), Math.min(Math.max(0, viewer.staffUntilMs - Date.now()), 2 ** 31 - 1));
    }
    if (from !== null) {
      const replay = 'cursor' in from ? resume(conn, decodeCursor(from.cursor), historyOpts) : resumeFromEventId(conn, from.eventId, historyOpts);
      replay.then(
        (outcome) => resumes[outcome]++,
        (err) => {
          log.warn({ err: (err as Error).message }, 'resume failed; client told to reconcile');
          resumes.reconciled++;
          conn.finishCatchUp(null, 'resubscribed');
        },
      );
    }
    const dispose = () => {
      if (!transports.delete(conn)) return;
      if (expiry) clearTimeout(expiry);
      backlogsOfClosed += conn.counters.backlogs;
      framesSentOfClosed += conn.counters.framesSent;
      conn.close();
      fanOut.leave(conn);
    };
    return { conn, dispose };
  }

  const sseDeps = {
    trustedOrigin: opts.trustedOrigin,
    trustProxy: opts.trustProxy ?? false,
    caps,
    retryMs: opts.sseRetryMs ?? 2000,
    isClosing: () => closing,
    resolveViewer,
    open: (socket: ConnectionSocket, viewer: Viewer, filter: StreamFilter | null, from: ResumeFrom | null, t: { end(): void; kill(): void }) =>
      open(socket, viewer, filter, from, { sse: true, ...t }),
  };

  const server = http.createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', connections: transports.size }));
      return;
    }
    const target = parseUpgradeUrl(req.url);
    if (target.path === SSE_PATH) return handleSse(req, res, target, sseDeps);
    if (opts.httpHandler?.(req, res)) return;
    res.writeHead(426, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'upgrade_required', message: `connect with WebSocket to ${WS_PATH}, or with EventSource to ${SSE_PATH}`, details: null } }));
  });

  server.on('upgrade', (req: http.IncomingMessage, socket, head) => {
    socket.on('error', () => undefined);
    const target = parseUpgradeUrl(req.url);
    if (target.path !== WS_PATH) return rejectHandshake(socket, 404, 'not_found', `the stream is at ${WS_PATH}`);
    if (!originAllowed(req.headers.origin, opts.trustedOrigin)) {
      return rejectHandshake(socket, 403, 'origin_not_allowed', `Origin must be ${opts.trustedOrigin}`);
    }
    if (closing) return rejectHandshake(socket, 503, 'unavailable', 'server going away');
    const parsed = parseStreamFilter(target.query);
    if (!parsed.ok) {
      const r = filterRejection(parsed.issues);
      return rejectHandshake(socket, 400, r.code, r.message, r.details);
    }
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
    void resolveViewer(req)
      .catch(() => anonymous)
      .then((viewer) => {
        wss.handleUpgrade(req, socket, head, (ws) => attach(ws, socket, viewer, parsed.filter, target));
      });
  });

  function attach(ws: WebSocket, socket: Duplex, viewer: Viewer, filter: StreamFilter | null, target: UpgradeTarget) {
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
    const { conn, dispose } = open(adapter, viewer, filter, target.cursor === null ? null : { cursor: target.cursor }, {
      sse: false,
      end: () => ws.close(1001, 'server going away'),
      kill: () => ws.terminate(),
    });
    ws.on('pong', () => conn.pong());
    ws.on('close', dispose);
  }

  return {
    server,
    ready: reader.ready,
    connections: () => transports.size,
    stats() {
      let catchingUp = 0;
      let backlogs = backlogsOfClosed;
      let framesSent = framesSentOfClosed;
      let staff = 0;
      let sse = 0;
      for (const [c, t] of transports) {
        if (c.mode === 'catching_up') catchingUp++;
        if (c.staff) staff++;
        if (t.sse) sse++;
        backlogs += c.counters.backlogs;
        framesSent += c.counters.framesSent;
      }
      const groups = fanOut.stats();
      return {
        connections: transports.size,
        sseConnections: sse,
        staffConnections: staff,
        filteredConnections: groups.filteredConnections,
        groups: groups.groups,
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
      fanOut.flush();
      fanOut.close();
      for (const t of transports.values()) t.end();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Give clients a moment to answer the close frame, then drop the rest.
      const until = Date.now() + 1000;
      while (transports.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      for (const t of transports.values()) t.kill();
      server.closeAllConnections();
      historyRedis.disconnect();
      await closed;
    },
  };
}
