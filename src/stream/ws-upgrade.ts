/**
 * WebSocket connections at /ws/news/: the upgrade request's checks (path, Origin, shutdown, the
 * subscription's filter, the connection caps), the viewer, and the socket's adapter to Connection.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { ConnectionCaps } from './caps.js';
import type { ConnectionSocket } from './connection.js';
import type { Connections } from './connections.js';
import { filterRejection, parseStreamFilter, type StreamFilter } from './rules/filter.js';
import { assetRejection, unknownAssetOf, type UnknownAssets } from './asset-check.js';
import { wireOf } from './rules/frames.js';
import { clientIp, originAllowed, parseUpgradeUrl, rejectHandshake, WS_PATH, type UpgradeTarget } from './handshake.js';
import { anonymous, type Viewer } from './viewer.js';

interface WsUpgradeDeps {
  wss: WebSocketServer;
  trustedOrigin: string;
  trustProxy: boolean;
  caps: ConnectionCaps;
  connections: Connections;
  isClosing(): boolean;
  resolveViewer(req: http.IncomingMessage): Promise<Viewer>;
  /** The asset filter's registry look-up (asset-check.ts). */
  unknownAssets?: UnknownAssets;
}

/**
 * The subscription a handshake asks for: its filter (null: every event it may see), or undefined
 * after refusing the handshake (wrong path 404, Origin 403, shutting down 503, bad filter 400).
 */
function subscriptionOf(d: WsUpgradeDeps, req: http.IncomingMessage, socket: Duplex, target: UpgradeTarget): { filter: StreamFilter | null } | undefined {
  if (target.path !== WS_PATH) return void rejectHandshake(socket, 404, 'not_found', `the stream is at ${WS_PATH}`);
  if (!originAllowed(req.headers.origin, d.trustedOrigin)) {
    return void rejectHandshake(socket, 403, 'origin_not_allowed', `Origin must be ${d.trustedOrigin}`);
  }
  if (d.isClosing()) return void rejectHandshake(socket, 503, 'unavailable', 'server going away');
  const parsed = parseStreamFilter(target.query);
  if (!parsed.ok) {
    const r = filterRejection(parsed.issues);
    return void rejectHandshake(socket, 400, r.code, r.message, r.details);
  }
  return { filter: parsed.filter };
}

/** The server's `upgrade` event: checks, a connection slot, then the WebSocket. */
export function handleUpgrade(d: WsUpgradeDeps, req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
  socket.on('error', () => undefined);
  const target = parseUpgradeUrl(req.url);
  const sub = subscriptionOf(d, req, socket, target);
  if (!sub) return;
  // Synchronous from here to acquire(): no other upgrade can run in between.
  const slot = d.caps.acquire(clientIp(req, d.trustProxy));
  if (!slot.ok) {
    d.wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => undefined);
      ws.close(4003, slot.reason);
    });
    return;
  }
  // The slot lives exactly as long as the TCP connection, whatever happens below.
  socket.once('close', slot.release);
  void Promise.all([d.resolveViewer(req).catch(() => anonymous), unknownAssetOf(sub.filter, d.unknownAssets)]).then(([viewer, unknown]) => {
    if (unknown !== null) {
      const r = assetRejection(unknown);
      return rejectHandshake(socket, r.status, r.code, r.message, r.details);
    }
    d.wss.handleUpgrade(req, socket, head, (ws) => attach(d, ws, socket, viewer, sub.filter, target));
  });
}

function attach(d: WsUpgradeDeps, ws: WebSocket, socket: Duplex, viewer: Viewer, filter: StreamFilter | null, target: UpgradeTarget): void {
  ws.on('error', () => undefined);
  if (d.isClosing()) {
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
  const { conn, dispose } = d.connections.open(adapter, viewer, filter, target.cursor === null ? null : { cursor: target.cursor }, {
    sse: false,
    end: () => ws.close(1001, 'server going away'),
    kill: () => ws.terminate(),
  });
  ws.on('pong', () => conn.pong());
  ws.on('close', dispose);
}
