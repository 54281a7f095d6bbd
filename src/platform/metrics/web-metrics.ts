/**
 * Prometheus metrics of the web process, served at GET /metrics (token-protected, see token.ts):
 *  - per process: HTTP requests and latency by method, matched route pattern and status (never the
 *    raw path: ids in paths would make one series per article), requests in flight, and prom-client's
 *    default process metrics (RSS, CPU, heap, event-loop lag);
 *  - cluster-wide, read from Redis at scrape time: job counts, failures, stalls and durations by job
 *    name (written by the workers, job-metrics.ts), queue depths by queue and state (BullMQ
 *    getJobCounts), and the lifecycle-event stream's length and newest-entry age. Every web instance
 *    reports the same cluster-wide values; aggregate them with max(), not sum().
 */
import type { Context, Middleware } from 'koa';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { DomainError } from '../errors/index.js';
import type { Logger } from '../logger.js';
import type { QueueClient } from '../queue.js';
import type { Redis } from '../redis.js';
import { counter, gauge, renderMetrics, type MetricObject, type MetricValue } from './custom-metrics.js';
import { readJobMetrics } from './job-metrics.js';
import { checkScrapeToken, METRICS_PATH } from './token.js';

const HTTP_DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Job states reported as queue depth. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed', 'waiting-children'] as const;
const SCRAPE_REDIS_TIMEOUT_MS = 2000;

/** The label for a request: the route pattern it matched, or a fixed bucket. Bounded cardinality. */
function routeLabel(ctx: Context): string {
  if (ctx.path === '/admin/queues' || ctx.path.startsWith('/admin/queues/')) return '/admin/queues/*';
  if (ctx.path === METRICS_PATH) return METRICS_PATH;
  // routerPath: the matched route's pattern, set by @koa/router (and by staticRouteFastPath).
  const matched = (ctx as unknown as { routerPath?: unknown }).routerPath;
  if (typeof matched === 'string' && matched.length > 0) return matched;
  return ctx.method === 'OPTIONS' ? 'preflight' : 'unmatched';
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('metrics read timed out')), ms)))]).finally(() => clearTimeout(timer));
}

interface WebMetricsDeps {
  redis: Redis;
  queue: QueueClient;
  prefix: string;
  streamKey: string;
  token: string | undefined;
  log: Logger;
  /** The event log's unrelayed events (PostgreSQL), read at scrape time. */
  outbox?: () => Promise<{ pending: number; oldestAgeS: number | null }>;
}

/** One HTTP series (method, route pattern, status): a count, a sum and per-bucket counts (not cumulative; the last is +Inf). */
interface HttpSeries {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  buckets: number[];
}

export class WebMetrics {
  readonly registry = new Registry();
  /**
   * The HTTP request counter and latency histogram, accumulated here and rendered at scrape time:
   * one Map lookup and a few additions per request, where prom-client's label hashing, timer
   * closures and two series updates cost several microseconds (measurable on cached feed pages).
   */
  private readonly http = new Map<string, HttpSeries>();
  private inFlight = 0;

  constructor(private readonly deps: WebMetricsDeps) {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Outermost middleware: times every request, whatever it turns into. */
  observe(): Middleware {
    return async (ctx, next) => {
      const started = performance.now();
      this.inFlight++;
      try {
        await next();
      } finally {
        this.inFlight--;
        this.recordRequest(ctx, routeLabel(ctx), started);
      }
    };
  }

  /** One finished request under the route label `route` (observe's, or the memory lane's: the matched pattern). */
  recordRequest(ctx: Context, route: string, started: number): void {
    this.record(METHODS.has(ctx.method) ? ctx.method : 'OTHER', route, ctx.status, (performance.now() - started) / 1000);
  }

  private record(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.http.get(key);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(HTTP_DURATION_BUCKETS_S.length + 1).fill(0) };
      this.http.set(key, series);
    }
    series.count++;
    series.sum += seconds;
    let i = 0;
    while (i < HTTP_DURATION_BUCKETS_S.length && seconds > HTTP_DURATION_BUCKETS_S[i]) i++;
    series.buckets[i]++;
  }

  /** The HTTP metrics in the Prometheus text format's terms (histogram buckets cumulative, `le` first). */
  httpMetrics(): MetricObject[] {
    const requests: MetricValue[] = [];
    const duration: MetricValue[] = [];
    const name = 'squid_http_request_duration_seconds';
    for (const s of this.http.values()) {
      requests.push({ labels: s.labels, value: s.count });
      let cumulative = 0;
      HTTP_DURATION_BUCKETS_S.forEach((le, i) => {
        cumulative += s.buckets[i];
        duration.push({ metricName: `${name}_bucket`, labels: { le, ...s.labels }, value: cumulative });
      });
      duration.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count });
      duration.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
      duration.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
    }
    return [
      counter('squid_http_requests_total', 'HTTP requests by method, matched route pattern and status.', requests),
      { name, help: 'HTTP request latency (until the response is handed to Node) by method, route pattern and status.', type: 'histogram', values: duration },
      gauge('squid_http_requests_in_flight', 'HTTP requests being handled.', [{ value: this.inFlight }]),
    ];
  }

  /** GET /metrics: mounted before credential parsing (the scrape token is not a session). */
  endpoint(): Middleware {
    return async (ctx, next) => {
      if (ctx.path !== METRICS_PATH) return next();
      const check = checkScrapeToken(this.deps.token, ctx.get('authorization') || undefined);
      if (check === 'disabled') throw new DomainError('not_found', `no route for ${ctx.method} ${ctx.path}`);
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
        throw new DomainError('method_not_allowed', `method ${ctx.method} not allowed on ${ctx.path}`, null, { headers: { Allow: 'GET, HEAD' } });
      if (check === 'unauthorized') {
        throw new DomainError('metrics_token_invalid', 'send Authorization: Bearer <METRICS_TOKEN>', null, { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
      }
      const shared = [...(await this.sharedMetrics()), ...(await this.outboxMetrics())];
      ctx.set('Cache-Control', 'no-store');
      ctx.type = this.registry.contentType;
      ctx.body = (await this.registry.metrics()) + renderMetrics([...this.httpMetrics(), ...shared]);
    };
  }

  /** Cluster-wide figures from Redis; when Redis does not answer, only squid_metrics_redis_up 0. */
  async sharedMetrics(): Promise<MetricObject[]> {
    try {
      const out = await withTimeout(
        Promise.all([readJobMetrics(this.deps.redis, this.deps.prefix, this.deps.queue.names), this.queueDepths(), this.streamMetrics()]),
        SCRAPE_REDIS_TIMEOUT_MS,
      );
      return [gauge('squid_metrics_redis_up', 'Whether Redis answered the metrics read (1) or not (0).', [{ value: 1 }]), ...out.flat()];
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message }, 'metrics: Redis read failed');
      return [gauge('squid_metrics_redis_up', 'Whether Redis answered the metrics read (1) or not (0).', [{ value: 0 }])];
    }
  }

  /** The relay's backlog: events committed but not yet on the stream (a growing age means the relay is stuck). */
  async outboxMetrics(): Promise<MetricObject[]> {
    if (!this.deps.outbox) return [];
    try {
      const o = await withTimeout(this.deps.outbox(), SCRAPE_REDIS_TIMEOUT_MS);
      return [
        gauge('squid_event_outbox_pending', 'Events recorded in the event log and not yet relayed to the stream.', [{ value: o.pending }]),
        gauge('squid_event_outbox_oldest_age_seconds', 'Age of the oldest unrelayed event (absent: nothing waiting).', o.oldestAgeS === null ? [] : [{ value: o.oldestAgeS }]),
      ];
    } catch (err) {
      this.deps.log.warn({ err: (err as Error).message }, 'metrics: event outbox read failed');
      return [];
    }
  }

  private async queueDepths(): Promise<MetricObject[]> {
    const depth = gauge('squid_queue_jobs', 'Jobs in each BullMQ queue by state (completed/failed are bounded by removeOnComplete/removeOnFail).', []);
    const counts = await Promise.all(this.deps.queue.names.map((name) => this.deps.queue.queue(name).getJobCounts(...QUEUE_STATES)));
    this.deps.queue.names.forEach((queue, i) => {
      for (const state of QUEUE_STATES) depth.values.push({ labels: { queue, state }, value: counts[i][state] ?? 0 });
    });
    return [depth];
  }

  private async streamMetrics(): Promise<MetricObject[]> {
    const res = await this.deps.redis.multi().xlen(this.deps.streamKey).xrevrange(this.deps.streamKey, '+', '-', 'COUNT', 1).exec();
    const len = Number(res?.[0]?.[1] ?? 0);
    const last = (res?.[1]?.[1] as [string, string[]][] | undefined)?.[0]?.[0];
    const lastMs = last ? Number(last.split('-')[0]) : null;
    return [
      gauge('squid_event_stream_length', 'Entries in the lifecycle-event stream (trimmed to about EVENT_STREAM_MAXLEN).', [{ value: len }]),
      gauge(
        'squid_event_stream_last_event_age_seconds',
        'Seconds since the newest lifecycle event was published (absent: empty stream).',
        lastMs === null ? [] : [{ value: Math.max(0, (Date.now() - lastMs) / 1000) }],
      ),
    ];
  }
}
