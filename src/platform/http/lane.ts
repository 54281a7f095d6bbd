/**
 * The memory lane: the app's first middleware. A GET without Origin, whose credentials (none, or
 * ones the auth cache vouches for right now: authenticateFromCache), to a route that can answer it
 * from this process's memory (RouteDef.lane: today the feed pages and syndication feeds this process
 * holds), is answered here, synchronously, instead of through the middleware chain, the router and
 * validation.
 *
 * It answers exactly as the chain would: ctx.state holds the caller as authenticate() would set it;
 * the route's own lane function writes status, body and validators with the handler's own code; the
 * daily quota is counted (Limits.dailyQuotaLocally: only when the caller's tally can count it without
 * Redis, so the caller is far from its limit); the request id, the security headers, the metrics and
 * the request log line come from the same functions the chain's middlewares use. Anything else -
 * credentials the cache cannot vouch for, a route's lane declining, a quota that needs Redis's word,
 * a browser request with Origin (CORS), HEAD - falls through to the chain as if the lane were not
 * there: the caller the lane set is removed (the chain authenticates on its own) and nothing was
 * counted.
 * test/integration/memory-lane.test.ts holds both paths to the same bytes and headers.
 */
import type { Context, Middleware } from 'koa';

/** The response from memory, to be written by `answer()`; undefined when the route cannot answer this request from memory. */
export type LaneAnswer = (() => void) | undefined;

interface LaneRoute {
  /** The full path (prefix included) the request must name exactly. */
  path: string;
  lane: (ctx: Context) => LaneAnswer;
  /** Counted against the daily quota. */
  metered: boolean;
}

interface LaneDeps {
  routes: LaneRoute[];
  /** authenticateFromCache: sets the caller in ctx.state when the cache alone can. */
  authenticate: (ctx: Context) => boolean;
  /** Limits.dailyQuotaLocally. */
  countQuota: (ctx: Context) => boolean;
  /** What the chain's first middleware does on the way in (the request id). */
  begin: (ctx: Context) => void;
  /** What the chain's outer middlewares do on the way out (security headers, metrics, log line), given the route label and the start time. */
  finish: (ctx: Context, route: string, started: number) => void;
}

export function memoryLane(deps: LaneDeps): Middleware {
  const table = new Map(deps.routes.map((r) => [r.path, r]));
  return (ctx, next) => {
    if (ctx.method !== 'GET' || ctx.headers.origin !== undefined) return next();
    const route = table.get(ctx.path);
    if (!route || !deps.authenticate(ctx)) return next();
    const started = performance.now();
    const answer = route.lane(ctx);
    if (!answer || (route.metered && !deps.countQuota(ctx))) {
      // The chain decides who the caller is on its own (its authenticate() may see what the cache did not, e.g. a token that expired since).
      delete ctx.state.user;
      delete ctx.state.apiKey;
      return next();
    }
    deps.begin(ctx);
    answer();
    deps.finish(ctx, route.path, started);
    return Promise.resolve();
  };
}
