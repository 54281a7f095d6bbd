/**
 * The WebSocket broadcaster at /ws/news/ (spec: Events) and its Server-Sent Events twin at
 * /sse/news/ (sse.ts). It reads the lifecycle-event stream from Redis (never Postgres) and relays
 * events to its clients:
 *
 * - handshake: Origin must equal TRUSTED_ORIGIN, else HTTP 403 before the upgrade (handshake.ts,
 *   ws-upgrade.ts); a bad filter (`types`, `token_address`, `token_symbol`, `tag`: filter.ts) is HTTP 400;
 * - caps: global and per-IP, one pool for both transports, taken synchronously at upgrade time;
 *   over a cap the socket is accepted and closed with 4003 and a reason (caps.ts);
 * - visibility: public events to everyone, staff-only events to connections with a staff
 *   access-token cookie, until that token expires (viewer.ts);
 * - frames: `{events, t, cursor}` batches per visibility class and filter (fan-out.ts,
 *   batcher.ts), sponsored events at once, heartbeats (heartbeat.ts), a bounded queue per
 *   connection with `reconcile/backlog` (connection.ts), `reconcile/resubscribed` when the reader
 *   lost events (stream-reader.ts, reconcile.ts);
 * - connections of both transports: join, catch-up, staff expiry, leave (connections.ts);
 * - resume by `?cursor=` or, on SSE, by event id (resume.ts); on close(), code 1001 for every
 *   WebSocket and the end of every SSE response.
 */
import http from 'node:http';
import { WebSocketServer } from 'ws';
import type { Logger } from '../platform/logger.js';
import { createRedis, type Redis } from '../platform/redis.js';
import { ConnectionCaps } from './caps.js';
import type { ConnectionSocket } from './connection.js';
import { Connections } from './connections.js';
import { FanOut } from './fan-out.js';
import type { StreamFilter } from './rules/filter.js';
import { parseUpgradeUrl, WS_PATH } from './handshake.js';
import { startHeartbeat } from './heartbeat.js';
import { handleSse, SSE_PATH, type ResumeFrom } from './sse.js';
import { RangeConnection } from './range-connection.js';
import { StreamReader } from './stream-reader.js';
import { viewerFromRequest, type Viewer } from './viewer.js';
import { handleUpgrade } from './ws-upgrade.js';
import type { UnknownAssets } from './asset-check.js';

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
  /** The registry look-up of asset filters (asset-check.ts); without it every well-formed asset id is accepted. */
  unknownAssets?: UnknownAssets;
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

/** The process's reader of the event stream, feeding the fan-out; a loss sends every connection a reconcile. */
function createReader(opts: BroadcasterOptions, clientName: string, batchMs: number, fanOut: FanOut, connections: Connections): StreamReader {
  return new StreamReader({
    redis: createRedis(opts.redisUrl, 'blocking', clientName),
    range: new RangeConnection(opts.redisUrl, `${clientName}-range`),
    streamKey: opts.streamKey,
    log: opts.log,
    blockMs: opts.readBlockMs,
    lingerMs: opts.readLingerMs ?? Math.min(20, Math.floor(batchMs / 10)),
    onItems: (items) => fanOut.push(items),
    onLoss() {
      // What was read before the gap goes out first, then the reconcile, then what follows.
      fanOut.flush();
      connections.reconcileAll('resubscribed');
    },
  });
}

/** Plain HTTP: /healthz, the SSE stream, the process's own handler (metrics), else 426. */
function httpRequestHandler(opts: BroadcasterOptions, connections: Connections, sseDeps: Parameters<typeof handleSse>[3]): http.RequestListener {
  return (req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', connections: connections.size }));
      return;
    }
    const target = parseUpgradeUrl(req.url);
    if (target.path === SSE_PATH) return handleSse(req, res, target, sseDeps);
    if (opts.httpHandler?.(req, res)) return;
    res.writeHead(426, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'upgrade_required', message: `connect with WebSocket to ${WS_PATH}, or with EventSource to ${SSE_PATH}`, details: null } }));
  };
}

interface Parts {
  server: http.Server;
  reader: StreamReader;
  fanOut: FanOut;
  connections: Connections;
  heartbeat: ReturnType<typeof startHeartbeat>;
  historyRedis: Redis;
}

/** Stop reading, flush open batches, end every connection (1s for close handshakes), stop listening. */
async function shutDown(p: Parts): Promise<void> {
  p.heartbeat.stop();
  await p.reader.stop();
  p.fanOut.flush();
  p.fanOut.close();
  p.connections.endAll();
  const closed = new Promise<void>((resolve) => p.server.close(() => resolve()));
  // Give clients a moment to answer the close frame, then drop the rest.
  const until = Date.now() + 1000;
  while (p.connections.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  p.connections.killAll();
  p.server.closeAllConnections();
  p.historyRedis.disconnect();
  await closed;
}

function statsOf(p: Parts, clientName: string): BroadcasterStats {
  const groups = p.fanOut.stats();
  return {
    ...p.connections.counts(),
    filteredConnections: groups.filteredConnections,
    groups: groups.groups,
    resumes: { ...p.connections.resumes },
    reader: { ...p.reader.counters, position: p.reader.position().id, clientName },
  };
}

export function createBroadcaster(opts: BroadcasterOptions): Broadcaster {
  const batchOpts = { batchMs: opts.batchMs ?? 200, batchMax: opts.batchMax ?? 10 };
  const caps = new ConnectionCaps({ maxTotal: opts.maxConnections ?? 500, maxPerIp: opts.maxPerIp ?? 5 });
  const resolveViewer = opts.resolveViewer ?? ((req) => viewerFromRequest(req, opts.jwtSecret));
  const wss = new WebSocketServer({ noServer: true, maxPayload: 4096, perMessageDeflate: false, clientTracking: false });
  const fanOut = new FanOut(batchOpts);
  let closing = false;

  const clientName = `ws-reader-${process.pid}-${++instances}`;
  const historyRedis: Redis = createRedis(opts.redisUrl, 'command', `ws-history-${process.pid}-${instances}`);
  const connections = new Connections({
    connOpts: { queueMax: opts.queueMax ?? 1000, sendBufferLimit: opts.sendBufferLimit ?? 512 * 1024 },
    fanOut,
    log: opts.log,
    history: { redis: historyRedis, streamKey: opts.streamKey, batchMax: batchOpts.batchMax, maxEvents: opts.resumeMaxEvents, maxScan: opts.resumeScanMax },
  });
  const reader = createReader(opts, clientName, batchOpts.batchMs, fanOut, connections);
  const heartbeat = startHeartbeat(opts.heartbeatMs ?? 25_000, () => connections.all());

  const trustProxy = opts.trustProxy ?? false;
  const isClosing = () => closing;
  const sseDeps = {
    trustedOrigin: opts.trustedOrigin,
    trustProxy,
    caps,
    retryMs: opts.sseRetryMs ?? 2000,
    isClosing,
    resolveViewer,
    unknownAssets: opts.unknownAssets,
    open: (socket: ConnectionSocket, viewer: Viewer, filter: StreamFilter | null, from: ResumeFrom | null, t: { end(): void; kill(): void }) =>
      connections.open(socket, viewer, filter, from, { sse: true, ...t }),
  };
  const server = http.createServer(httpRequestHandler(opts, connections, sseDeps));
  const upgradeDeps = { wss, trustedOrigin: opts.trustedOrigin, trustProxy, caps, connections, isClosing, resolveViewer, unknownAssets: opts.unknownAssets };
  server.on('upgrade', (req: http.IncomingMessage, socket, head) => handleUpgrade(upgradeDeps, req, socket, head));

  const parts: Parts = { server, reader, fanOut, connections, heartbeat, historyRedis };
  return {
    server,
    ready: reader.ready,
    connections: () => connections.size,
    stats: () => statsOf(parts, clientName),
    async close() {
      if (closing) return;
      closing = true;
      await shutDown(parts);
    },
  };
}
