/**
 * createApp(deps) returns the Koa app without listening; bin/web.ts listens, tests use callback().
 */
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { AppDeps } from './platform/deps.js';
import { errorMiddleware } from './platform/errors/index.js';
import { API_PREFIX } from './platform/http/openapi.js';
import { adminQueues, adminQueuesCsp } from './ops/index.js';
import { authenticate, authenticateFromCache, csrfGuard, requireAuth } from './identity/index.js';
import { Limits } from './platform/http/rate-limit.js';
import { finalSecurityHeaders, securityHeaders } from './platform/http/security-headers.js';
import { memoryLane } from './platform/http/lane.js';
import { isMetered, mountRoutes, staticRouteFastPath, type RouteDef } from './platform/http/route.js';
import { eventStreamKey } from './platform/events/events.js';
import { WebMetrics } from './platform/metrics/web-metrics.js';
import { outboxDepth } from './platform/events/log.js';
import { docsCsp } from './api-docs/routes.js';
import { allRoutes } from './routes.js';
import { editorCsp as editorConsoleCsp } from './editor/console-routes.js';
import { mcpEndpoint } from './mcp/index.js';
import { redisHung } from './platform/redis.js';
import { requestLogger, type RequestLog } from './platform/http/request-log.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface AppOptions {
  /** Serve parameterless routes through staticRouteFastPath (default true; off only to measure it). */
  staticFastPath?: boolean;
  /** Answer what routes can from memory before the middleware chain (src/platform/http/lane.ts; default true; off to compare or measure). */
  memoryLane?: boolean;
}

/** Counted against the daily quota. */
const metered = isMetered;
/** The path a route is served at. */
const fullPath = (def: RouteDef) => ((def.mount ?? 'api') === 'api' ? `${API_PREFIX}${def.path}` : def.path);
/** A route the memory lane may answer: public, no per-IP limit, no extra middleware (the lane counts only the daily quota). */
const laneEligible = (def: RouteDef) => (def.auth ?? 'public') === 'public' && !def.rateLimit && !def.before;

function assignRequestId(ctx: Koa.Context): string {
  const incoming = ctx.get('x-request-id');
  const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
  ctx.state.requestId = requestId;
  ctx.set('X-Request-Id', requestId);
  return requestId;
}

function webMetrics(deps: AppDeps): WebMetrics {
  return new WebMetrics({
    redis: deps.redis,
    queue: deps.queue,
    prefix: deps.config.QUEUE_PREFIX,
    streamKey: eventStreamKey(deps.config.QUEUE_PREFIX),
    token: deps.config.METRICS_TOKEN,
    log: deps.log,
    outbox: () => outboxDepth(deps.db),
  });
}

function securityOptions(deps: AppDeps) {
  const editorCsp = editorConsoleCsp(deps.config);
  return {
    trustedOrigin: deps.config.TRUSTED_ORIGIN,
    https: deps.config.PUBLIC_BASE_URL.startsWith('https:'),
    cspOverride: (ctx: Koa.Context) => adminQueuesCsp(ctx) ?? editorCsp(ctx) ?? docsCsp(ctx),
  };
}

interface Chain {
  metrics: WebMetrics;
  security: ReturnType<typeof securityOptions>;
  limits: Limits;
  logRequest: RequestLog;
}

/** Answers from memory what the chain below would answer the same way (src/platform/http/lane.ts). */
function useMemoryLane(app: Koa, deps: AppDeps, routes: RouteDef[], { metrics, security, limits, logRequest }: Chain): void {
  const finalHeaders = finalSecurityHeaders(security);
  app.use(
    memoryLane({
      routes: routes.flatMap((def) => (def.lane && def.method === 'get' && laneEligible(def) ? [{ path: fullPath(def), lane: def.lane, metered: metered(def) }] : [])),
      authenticate: authenticateFromCache(deps.db),
      countQuota: (ctx) => limits.dailyQuotaLocally(ctx),
      begin: assignRequestId,
      finish: (ctx, route, started) => {
        finalHeaders(ctx);
        metrics.recordRequest(ctx, route, started);
        logRequest(ctx, ctx.state.requestId as string, started);
      },
    }),
  );
}

/** koa-body for the methods that carry a body; it would check the content type of every GET too. */
function bodyParser(deps: AppDeps): Koa.Middleware {
  const parse = koaBody({
    json: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonLimit: deps.config.BODY_LIMIT_BYTES,
    formLimit: deps.config.BODY_LIMIT_BYTES,
    parsedMethods: [...BODY_METHODS] as never,
  });
  return (ctx, next) => (BODY_METHODS.has(ctx.method) ? parse(ctx, next) : next());
}

/** Mounts every RouteDef behind its guards, then 405/501 answers per router. */
function mountAll(app: Koa, deps: AppDeps, routes: RouteDef[], limits: Limits, opts: AppOptions): void {
  const quota = limits.dailyQuota();
  const quotaFailOpen = limits.dailyQuota({ failOpen: true });
  // Order per route: daily quota (API routes), per-IP route limit, then auth level.
  const guards = (def: RouteDef) => {
    const g = [];
    if (metered(def)) g.push(def.quotaFailOpen ? quotaFailOpen : quota);
    if (def.rateLimit) g.push(limits.perIp(def.rateLimit));
    if (def.auth && def.auth !== 'public') g.push(requireAuth(def.auth, deps.db));
    return g;
  };
  const api = new Router({ prefix: API_PREFIX });
  const root = new Router();
  const statics = [
    ...mountRoutes(
      api,
      routes.filter((r) => (r.mount ?? 'api') === 'api'),
      guards,
      API_PREFIX,
    ),
    ...mountRoutes(
      root,
      routes.filter((r) => r.mount === 'root'),
      guards,
    ),
  ];
  if (opts.staticFastPath ?? true) app.use(staticRouteFastPath([api, root], statics));
  for (const r of [api, root]) {
    app.use(r.routes());
    // Sets 405 + Allow (or 501); errorMiddleware renders the body.
    app.use(r.allowedMethods());
  }
}

export function createApp(deps: AppDeps, routes: RouteDef[] = allRoutes(deps), opts: AppOptions = {}): Koa {
  // Behind a proxy, the client IP is the last X-Forwarded-For hop (the one our proxy appended);
  // earlier hops are client-supplied and never trusted. Without TRUST_PROXY the header is ignored.
  const app = new Koa({ proxy: deps.config.TRUST_PROXY, maxIpsCount: 1 });
  // Koa's own error event would print stacks to stderr; errorMiddleware logs what matters.
  app.silent = true;

  const logRequest = requestLogger(deps.log);
  const metrics = webMetrics(deps);
  const security = securityOptions(deps);
  const limits = new Limits(deps.redis, deps.config.QUEUE_PREFIX, deps.config);

  if (opts.memoryLane ?? true) useMemoryLane(app, deps, routes, { metrics, security, limits, logRequest });
  app.use(async (ctx, next) => {
    const requestId = assignRequestId(ctx);
    const started = performance.now();
    try {
      await next();
    } finally {
      logRequest(ctx, requestId, started);
    }
  });
  app.use(metrics.observe());
  app.use(securityHeaders(security));
  // ioredis fails commands with plain Errors while its connection is down: the client's state at
  // the time of the error (not connected, or connected to a Redis that stopped answering) tells a
  // Redis outage (503) from a bug (500).
  const probe = { redisDown: () => deps.redis.status !== 'ready' || redisHung(deps.redis) };
  app.use(errorMiddleware(deps.log, probe));
  // Before credential parsing: the scrape token is not a session token.
  app.use(metrics.endpoint());
  app.use(authenticate({ db: deps.db, secret: deps.config.JWT_SECRET, authCacheCheckMs: deps.config.AUTH_CACHE_CHECK_MS }));
  app.use(csrfGuard(deps.config.TRUSTED_ORIGIN));
  app.use(bodyParser(deps));

  // Staff only; after csrfGuard (its POST actions) and the body parser; not metered.
  app.use(adminQueues({ db: deps.db, queue: deps.queue, log: deps.log, probe }));
  // The MCP endpoint (/mcp): its tools call the features' services, metered like the REST routes they stand for.
  app.use(mcpEndpoint(deps, routes));

  mountAll(app, deps, routes, limits, opts);
  return app;
}
