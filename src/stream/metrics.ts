/**
 * Prometheus metrics of one ws process, served at GET /metrics on its own HTTP server (the port
 * clients connect to), with the same token as web (METRICS_TOKEN; unset: 404). Per process:
 * connections by class, frames written, backlog reconciles, resumes by outcome, stream-reader
 * counters, how far the reader is behind the newest stream entry, and prom-client's default
 * process metrics.
 *
 * The default metrics are collected only when the endpoint is enabled, and their event-loop lag
 * histogram samples every 100 ms instead of prom-client's 10 ms: its libuv timer wakes the process
 * on every tick, busy or idle. At 10 ms that was 100 wake-ups a second, about a third of what the ws
 * process spent per second at 100 events/s with no client wanting them (bench:ws), a
 * fixed cost that weighs most on filtered connections, which share each event among fewer clients.
 */
import type http from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { BroadcasterStats } from './server.js';
import type { Logger } from '../platform/logger.js';
import type { Redis } from '../platform/redis.js';
import { counter, gauge, renderMetrics, type MetricObject } from '../platform/metrics/custom-metrics.js';
import { checkScrapeToken, METRICS_PATH } from '../platform/metrics/token.js';

const idMs = (id: string): number | null => {
  const m = /^(\d+)-\d+$/.exec(id);
  return m ? Number(m[1]) : null;
};

/** Resolution of nodejs_eventloop_lag_* (prom-client's default is 10 ms). */
const EVENT_LOOP_SAMPLE_MS = 100;

export class WsMetrics {
  readonly registry = new Registry();

  constructor(private readonly deps: { token: string | undefined; stats: () => BroadcasterStats; redis: Redis | null; streamKey: string; log: Logger }) {
    if (deps.token) collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  }

  /** For BroadcasterOptions.httpHandler: answers /metrics, leaves every other path to the broadcaster. */
  handle = (req: http.IncomingMessage, res: http.ServerResponse): boolean => {
    if ((req.url ?? '').split('?')[0] !== METRICS_PATH) return false;
    const json = (status: number, code: string, message: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
      res.end(JSON.stringify({ error: { code, message, details: null } }));
    };
    const check = checkScrapeToken(this.deps.token, req.headers.authorization);
    if (check === 'disabled') json(404, 'not_found', `no route for ${req.method} ${METRICS_PATH}`);
    else if (req.method !== 'GET' && req.method !== 'HEAD') json(405, 'method_not_allowed', `method ${req.method} not allowed on ${METRICS_PATH}`, { allow: 'GET, HEAD' });
    else if (check === 'unauthorized') json(401, 'metrics_token_invalid', 'send Authorization: Bearer <METRICS_TOKEN>', { 'www-authenticate': 'Bearer realm="metrics"' });
    else {
      this.render().then(
        (text) => {
          res.writeHead(200, { 'content-type': this.registry.contentType, 'cache-control': 'no-store' });
          res.end(text);
        },
        (err) => {
          this.deps.log.error({ err }, 'metrics rendering failed');
          json(500, 'internal_error', 'internal error');
        },
      );
    }
    return true;
  };

  async render(): Promise<string> {
    const s = this.deps.stats();
    const custom: MetricObject[] = [
      gauge('squid_ws_connections', 'Open stream connections (WebSocket and SSE) by visibility class.', [
        { labels: { class: 'public' }, value: s.connections - s.staffConnections },
        { labels: { class: 'staff' }, value: s.staffConnections },
      ]),
      gauge('squid_ws_sse_connections', 'Open connections at /sse/news/ (included in squid_ws_connections).', [{ value: s.sseConnections }]),
      gauge('squid_ws_filtered_connections', 'Open connections with a filter (types, token_address, token_symbol, tag).', [{ value: s.filteredConnections }]),
      gauge('squid_ws_fanout_groups', 'Groups (visibility class x filter) that batches are built for, the two unfiltered ones included.', [{ value: s.groups }]),
      gauge('squid_ws_connections_catching_up', 'Connections replaying history after a ?cursor= resume.', [{ value: s.catchingUp }]),
      counter('squid_ws_frames_sent_total', 'Frames written to client sockets (batches, heartbeats, reconciles).', [{ value: s.framesSent }]),
      counter('squid_ws_backlog_reconciles_total', 'Slow clients told to reconcile (reason backlog) because their queue overflowed.', [{ value: s.backlogs }]),
      counter(
        'squid_ws_resumes_total',
        'Cursor resumes by outcome.',
        Object.entries(s.resumes).map(([outcome, value]) => ({ labels: { outcome }, value })),
      ),
      counter('squid_ws_stream_entries_read_total', 'Lifecycle-event stream entries read by this process.', [{ value: s.reader.entries }]),
      counter('squid_ws_stream_losses_total', 'Times the reader found events missing (trimmed or Redis restarted empty) and sent reconcile/resubscribed.', [
        { value: s.reader.losses },
      ]),
      counter('squid_ws_stream_read_errors_total', 'Failed stream reads (Redis unreachable); the reader retries.', [{ value: s.reader.errors }]),
      counter(
        'squid_ws_stream_lean_read_fallbacks_total',
        "Reads made while events flow that went through ioredis because the reader's lean connection failed or is backing off (more CPU per read, nothing lost).",
        [{ value: s.reader.rangeFallbacks }],
      ),
    ];
    if (this.deps.redis) {
      try {
        const last = (await this.deps.redis.xrevrange(this.deps.streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
        const newest = last[0] ? idMs(last[0][0]) : null;
        const at = idMs(s.reader.position);
        const behind = newest !== null && at !== null && last[0][0] !== s.reader.position ? Math.max(0, newest - at) / 1000 : 0;
        custom.push(
          gauge('squid_ws_stream_lag_seconds', 'Publish-time gap between the newest stream entry and the last one this process has read (0 when caught up).', [{ value: behind }]),
        );
      } catch (err) {
        this.deps.log.debug({ err: (err as Error).message }, 'metrics: stream lag unavailable');
      }
    }
    return (await this.registry.metrics()) + renderMetrics(custom);
  }
}
