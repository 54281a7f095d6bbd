/**
 * Server-Sent Events at /sse/news/ on the ws process beside the WebSocket: the same
 * events, filters (filter.ts), Origin rule, connection caps (one pool with WebSocket connections),
 * staff cookie, batching, backlog and reconcile rules. What differs is only the framing (frames.ts
 * sseOf) and how a client resumes:
 *
 * - each event is one message: `id: <event_id>` and `data: <event JSON>` (default `message` type);
 *   `event: reconcile` messages carry `{"type":"reconcile","reason":...}` and no id; the heartbeat is
 *   the comment `: hb`;
 * - resume with the `Last-Event-ID` header (EventSource sends it when it reconnects), or the
 *   `last_event_id` query parameter for a first connect; the header wins when both are present;
 * - the first bytes are `retry: <ms>`, jittered per connection, so that the reconnects after a
 *   shutdown spread out instead of arriving together.
 *
 * Origin: as for the WebSocket handshake, the request must carry `Origin: TRUSTED_ORIGIN`, else 403.
 * Browsers send it on the cross-origin EventSource request a page of the trusted origin makes to
 * the ws port; non-browser clients must send it (spec Events). Responses to the trusted origin
 * carry CORS headers with credentials (`new EventSource(url, {withCredentials: true})` sends the
 * access_token cookie). Errors are HTTP answers in the API's error shape; note that EventSource
 * does not retry after a non-200 answer (the page decides when to try again).
 */
import type http from 'node:http';
import type { ConnectionCaps } from './caps.js';
import type { Connection, ConnectionSocket } from './connection.js';
import { filterRejection, parseStreamFilter, type StreamFilter } from './rules/filter.js';
import { assetRejection, unknownAssetOf, type UnknownAssets } from './asset-check.js';
import { sseOf } from './rules/frames.js';
import { clientIp, originAllowed, type UpgradeTarget } from './handshake.js';
import { anonymous, type Viewer } from './viewer.js';

export const SSE_PATH = '/sse/news/';

/** Where a new connection resumes from. */
export type ResumeFrom = { cursor: string } | { eventId: string };

interface SseDeps {
  trustedOrigin: string;
  trustProxy: boolean;
  caps: ConnectionCaps;
  /** Base of the `retry:` advice; each connection gets a value between it and twice it. */
  retryMs: number;
  isClosing(): boolean;
  resolveViewer(req: http.IncomingMessage): Promise<Viewer>;
  /** The asset filter's registry look-up (asset-check.ts). */
  unknownAssets?: UnknownAssets;
  /** Register a connection (server.ts): it joins its group and, with `from`, starts catching up. */
  open(
    socket: ConnectionSocket,
    viewer: Viewer,
    filter: StreamFilter | null,
    from: ResumeFrom | null,
    transport: { end(): void; kill(): void },
  ): { conn: Connection; dispose(): void };
}

/** Seconds a client over a connection cap is asked to wait. */
const CAPACITY_RETRY_AFTER_S = 10;

function corsHeaders(origin: string): Record<string, string> {
  // Retry-After is exposed so that a page told 503 capacity_exceeded can say when it tries again.
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', 'access-control-expose-headers': 'Retry-After', vary: 'Origin' };
}

function sendError(res: http.ServerResponse, status: number, code: string, message: string, details: unknown = null, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: { code, message, details } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
  res.end(body);
}

/** Answer a request for SSE_PATH. */
export function handleSse(req: http.IncomingMessage, res: http.ServerResponse, target: UpgradeTarget, deps: SseDeps): void {
  const trusted = originAllowed(req.headers.origin, deps.trustedOrigin);
  const cors = trusted ? corsHeaders(deps.trustedOrigin) : {};
  if (req.method === 'OPTIONS') {
    if (!trusted) return sendError(res, 403, 'origin_not_allowed', `Origin must be ${deps.trustedOrigin}`);
    res.writeHead(204, {
      ...cors,
      'access-control-allow-methods': 'GET',
      'access-control-allow-headers': 'Last-Event-ID, Cache-Control, Accept',
      'access-control-max-age': '600',
    });
    res.end();
    return;
  }
  if (req.method !== 'GET') return sendError(res, 405, 'method_not_allowed', `${SSE_PATH} answers GET`, null, { allow: 'GET, OPTIONS', ...cors });
  if (!trusted) return sendError(res, 403, 'origin_not_allowed', `Origin must be ${deps.trustedOrigin}`);
  if (deps.isClosing()) return sendError(res, 503, 'unavailable', 'server going away', null, { 'retry-after': '1', ...cors });
  const parsed = parseStreamFilter(target.query);
  if (!parsed.ok) {
    const r = filterRejection(parsed.issues);
    return sendError(res, 400, r.code, r.message, r.details, cors);
  }
  // Synchronous from here to acquire(), as for the WebSocket upgrade (caps.ts).
  const slot = deps.caps.acquire(clientIp(req, deps.trustProxy));
  if (!slot.ok) return sendError(res, 503, 'capacity_exceeded', slot.reason, null, { 'retry-after': String(CAPACITY_RETRY_AFTER_S), ...cors });
  let gone = false;
  res.once('close', () => {
    gone = true;
    slot.release();
  });
  const header = req.headers['last-event-id'];
  const lastEventId = (typeof header === 'string' && header !== '' ? header : null) ?? target.query.get('last_event_id');

  void Promise.all([deps.resolveViewer(req).catch(() => anonymous), unknownAssetOf(parsed.filter, deps.unknownAssets)]).then(([viewer, unknown]) => {
    if (gone) return;
    if (deps.isClosing()) return sendError(res, 503, 'unavailable', 'server going away', null, { 'retry-after': '1', ...cors });
    if (unknown !== null) {
      const r = assetRejection(unknown);
      return sendError(res, r.status, r.code, r.message, r.details, cors);
    }
    res.writeHead(200, {
      ...cors,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // The stream is the connection's whole life: a reconnect opens a new one (through the
      // load balancer, and never into a process that is shutting down).
      connection: 'close',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: ${Math.round(deps.retryMs * (1 + Math.random()))}\n\n`);
    const socket: ConnectionSocket = {
      get bufferedAmount() {
        return res.writableLength;
      },
      isOpen: () => !gone && !res.writableEnded,
      send: (frame) => void res.write(sseOf(frame)),
      terminate: () => res.destroy(),
    };
    const tcp = req.socket;
    const { dispose } = deps.open(socket, viewer, parsed.filter, lastEventId === null ? null : { eventId: lastEventId }, {
      // Once the last bytes are handed to the kernel the connection is done (Connection: close):
      // do not wait for a client that stopped reading to close its side.
      end: () => res.end(() => tcp.destroy()),
      kill: () => res.destroy(),
    });
    res.once('close', dispose);
  });
}
