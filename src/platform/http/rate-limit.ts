/**
 * Quotas and rate limits, counted in Redis (rate-limiter-flexible) so that every web process shares
 * them. Two kinds:
 *  - daily quota per caller, by UTC calendar day: an API key by its tier (free 1,000, builder 50,000,
 *    enterprise unlimited), a wallet session per user, an anonymous caller per IP;
 *  - per-route limits per client IP (e.g. provenance check 30/min), declared on the RouteDef, and
 *    per account where a route applies one itself (e.g. picture uploads per hour).
 * Every counted response carries RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset (seconds);
 * a refusal is 429 with Retry-After. A Redis failure is 503, never a silent bypass.
 *
 * Daily counts are gathered in each web process and sent as one INCRBY per caller every
 * QUOTA_FLUSH_MS (DailyTallies): a request far from its limit costs no Redis command of its own.
 * Exact where it matters: the first request of a caller in a process, every request within
 * exactMargin(limit) of the limit, and every request after a Redis error or QUOTA_TRUST_MS without
 * a reply for that caller go to Redis one by one and wait for its answer (503 if it has none).
 */
import type { Context, Middleware } from 'koa';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { tierDailyQuota, type Tier } from './quota-tiers.js';
import type { Config } from '../config.js';
import { DomainError } from '../errors/index.js';
import type { Redis } from '../redis.js';
import { apiKeyQuotaKey, dailyQuotaKey, rateLimitKeyPrefix } from '../redis-keys.js';

// Daily counters live a month so the API-key dashboard can chart the last 30 days from them.
const DAILY_KEY_TTL_S = 32 * 24 * 3600;

let dayMemo = { from: 0, until: 0, day: '' };

export function utcDay(d = new Date()): string {
  // Every metered request asks; the answer changes once a day.
  const t = d.getTime();
  if (t >= dayMemo.from && t < dayMemo.until) return dayMemo.day;
  const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  dayMemo = { from, until: from + 86_400_000, day: d.toISOString().slice(0, 10) };
  return dayMemo.day;
}

export function secondsUntilUtcMidnight(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

function setHeaders(ctx: Context, limit: number | null, remaining: number, resetS: number) {
  if (limit === null) {
    ctx.set('RateLimit-Limit', 'unlimited');
    return;
  }
  ctx.set('RateLimit-Limit', String(limit));
  ctx.set('RateLimit-Remaining', String(Math.max(0, remaining)));
  ctx.set('RateLimit-Reset', String(resetS));
}

function rateLimited(spec: LimitSpec, scope: 'route' | 'account', resetS: number): DomainError {
  return new DomainError(
    'rate_limited',
    `rate limit of ${spec.points} requests per ${spec.durationS} s exceeded for this ${scope}; retry in ${resetS} s`,
    { limit: spec.points, window_seconds: spec.durationS, retry_after_seconds: resetS },
    { headers: { 'Retry-After': String(resetS) } },
  );
}

/** Throws rate_limited (with the RateLimit headers) when `id` has consumed every point of `spec`; consumes nothing. */
async function refuseWhenSpent(ctx: Context, limiter: RateLimiterRedis, spec: LimitSpec, id: string, scope: 'route' | 'account'): Promise<void> {
  const res = await limiter.get(id).catch(() => {
    throw unavailable();
  });
  if (res && res.consumedPoints >= spec.points) {
    const resetS = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    setHeaders(ctx, spec.points, 0, resetS);
    throw rateLimited(spec, scope, resetS);
  }
}

function unavailable(): DomainError {
  return new DomainError('service_unavailable', 'rate limiting is unavailable (Redis); retry shortly', null, { headers: { 'Retry-After': '5' } });
}

/** How often a process sends the daily counts it gathered (one INCRBY per caller with new requests). */
const QUOTA_FLUSH_MS = 10;
/** A caller's count is served from the process's tally only while Redis answered for it this recently. */
export const QUOTA_TRUST_MS = 1000;
/** After a failed INCRBY, when its counts are sent again. */
const QUOTA_RETRY_MS = 250;
/** Callers kept per process (the oldest idle ones go first). */
const QUOTA_TALLIES_MAX = 10_000;

/**
 * Requests this close to the limit are counted in Redis one by one, so the limit holds across web
 * processes: a process's view lags the shared count only by the other processes' last flush (their
 * last QUOTA_FLUSH_MS of requests from that caller), far less than this margin.
 */
export function exactMargin(limit: number): number {
  return Math.max(100, Math.ceil(limit / 100));
}

interface Tally {
  /** The day's count in Redis as of the last reply. */
  total: number;
  /** Counted and sent, reply not yet in. */
  sent: number;
  /** Counted, not yet sent. */
  pending: number;
  /** When Redis last answered for this counter (ms since epoch). */
  syncedAt: number;
}

/** One set of tallies per Redis connection, so that every Limits of a process shares them (the usage pages read them too). */
const talliesByRedis = new WeakMap<Redis, DailyTallies>();

function talliesOf(redis: Redis): DailyTallies {
  let t = talliesByRedis.get(redis);
  if (!t) talliesByRedis.set(redis, (t = new DailyTallies(redis)));
  return t;
}

/**
 * Send the daily-quota counts this process gathered on `redis` and wait for Redis to take them: call
 * it when the process stops serving requests, before the connection closes, so none are lost.
 */
export async function flushDailyQuota(redis: Redis): Promise<void> {
  await talliesByRedis.get(redis)?.flushNow();
}

/** The daily counters of this process's callers (see the module comment). */
class DailyTallies {
  private readonly tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | null = null;
  private healthy = true;

  constructor(private readonly redis: Redis) {}

  /** Count one request on the day's counter `key`; the day's count including it, as this process knows it. */
  count(key: string, limit: number | null): number | Promise<number> {
    return this.countLocally(key, limit) ?? this.countNow(key);
  }

  /** Count one request in this process's tally when that needs no word from Redis (see the module comment); undefined, and nothing counted, otherwise. */
  countLocally(key: string, limit: number | null): number | undefined {
    const t = this.tallies.get(key);
    if (!t || !this.healthy || Date.now() - t.syncedAt >= QUOTA_TRUST_MS) return undefined;
    const known = t.total + t.sent + t.pending;
    if (limit !== null && limit - known <= exactMargin(limit)) return undefined;
    t.pending++;
    this.schedule(QUOTA_FLUSH_MS);
    return known + 1;
  }

  /** Requests of `key` counted here whose INCRBY has not been answered yet (read after a Redis read on the same connection: what it did not see). */
  unsent(key: string): number {
    const t = this.tallies.get(key);
    return t ? t.pending + t.sent : 0;
  }

  /** This request and whatever the caller's tally holds, in one command, waiting for Redis. */
  private async countNow(key: string): Promise<number> {
    let t = this.tallies.get(key);
    if (!t) {
      t = { total: 0, sent: 0, pending: 0, syncedAt: 0 };
      this.tallies.set(key, t);
      if (this.tallies.size > QUOTA_TALLIES_MAX) this.trim();
    }
    const n = t.pending + 1;
    t.pending = 0;
    const total = await this.send(key, t, n, 1);
    // The day's first request sets the expiry (and every 1,000th again, NX: in case that one was lost).
    if (needsExpiry(total, n)) await this.redis.expire(key, DAILY_KEY_TTL_S, 'NX');
    return total;
  }

  /** INCRBY n; on failure the n - own counts that were not this request's go back to pending. */
  private async send(key: string, t: Tally, n: number, own: number): Promise<number> {
    t.sent += n;
    let total: number;
    try {
      total = n === 1 ? await this.redis.incr(key) : await this.redis.incrby(key, n);
    } catch (err) {
      t.sent -= n;
      t.pending += n - own;
      this.healthy = false;
      // Counts of admitted requests are sent again, whether or not the caller comes back.
      if (n > own) this.schedule(QUOTA_RETRY_MS);
      throw err;
    }
    // Replies come in order on the one connection: the total includes every earlier command of ours.
    t.sent -= n;
    t.total = total;
    t.syncedAt = Date.now();
    this.healthy = true;
    return total;
  }

  /** Send every gathered count now and wait for the replies (a process shutting down). */
  async flushNow(): Promise<void> {
    await Promise.all(this.flush());
  }

  private schedule(ms: number): void {
    this.timer ??= setTimeout(() => void this.flush(), ms).unref();
  }

  /** One INCRBY per counter with gathered counts (and its expiry when due); never rejects. */
  private flush(): Promise<unknown>[] {
    this.timer = null;
    const sends: Promise<unknown>[] = [];
    for (const [key, t] of this.tallies) {
      if (t.pending === 0) continue;
      const n = t.pending;
      t.pending = 0;
      sends.push(
        this.send(key, t, n, 0)
          .then((total) => (needsExpiry(total, n) ? this.redis.expire(key, DAILY_KEY_TTL_S, 'NX') : 0))
          .catch(() => undefined),
      );
    }
    return sends;
  }

  /** Drop the oldest idle tallies (nothing pending or in flight) down to three quarters of the cap. */
  private trim(): void {
    for (const [key, t] of this.tallies) {
      if (this.tallies.size <= (QUOTA_TALLIES_MAX * 3) / 4) break;
      if (t.pending === 0 && t.sent === 0) this.tallies.delete(key);
    }
  }
}

/** Whether an INCRBY of n that brought the counter to `total` created it or crossed a multiple of 1,000. */
function needsExpiry(total: number, n: number): boolean {
  return total === n || Math.floor(total / 1000) > Math.floor((total - n) / 1000);
}

interface LimitSpec {
  key: string;
  points: number;
  durationS: number;
}

interface Caller {
  kind: 'api_key' | 'user' | 'anonymous';
  id: string;
  limit: number | null;
}

export class Limits {
  private readonly perRoute = new Map<string, RateLimiterRedis>();
  private talliesOfRedis?: DailyTallies;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly config: Config,
  ) {}

  /** Taken on first use: routes are also mounted without a connection (the OpenAPI document). */
  private get tallies(): DailyTallies {
    return (this.talliesOfRedis ??= talliesOf(this.redis));
  }

  callerOf(ctx: Context): Caller {
    return this.callerOfState(ctx.state, ctx.ip);
  }

  /** The daily-quota caller of authenticated state (an API key, else an account, else the client IP). */
  callerOfState(state: { apiKey?: { id: string; tier: Tier }; user?: { id: number } }, ip: string): Caller {
    const key = state.apiKey;
    if (key) return { kind: 'api_key', id: `key:${key.id}`, limit: tierDailyQuota[key.tier] };
    const user = state.user;
    if (user) return { kind: 'user', id: `user:${user.id}`, limit: this.config.SESSION_DAILY_QUOTA };
    return { kind: 'anonymous', id: `ip:${ip}`, limit: this.config.ANON_DAILY_QUOTA };
  }

  /**
   * The daily quota for the memory lane (src/platform/http/lane.ts): counts the request and sets the
   * RateLimit headers, as dailyQuota() would, when this process's tally can count it without Redis
   * (the caller is then far from its limit, so it is admitted); false, and nothing counted, otherwise.
   */
  dailyQuotaLocally(ctx: Context): boolean {
    const caller = this.callerOf(ctx);
    const now = new Date();
    const consumed = this.tallies.countLocally(dailyQuotaKey(this.prefix, caller.id, utcDay(now)), caller.limit);
    if (consumed === undefined) return false;
    setHeaders(ctx, caller.limit, caller.limit === null ? 0 : caller.limit - consumed, secondsUntilUtcMidnight(now));
    return true;
  }

  /**
   * Count one request of `caller` against its daily quota: the RateLimit figures, or null when Redis
   * does not answer and `failOpen` lets the request go on uncounted (else 503). `refuse` is the
   * 429 daily_quota_exceeded when this request is over the limit (counted all the same).
   */
  async countDaily(caller: Caller, opts: { failOpen?: boolean } = {}): Promise<{ limit: number | null; remaining: number; resetS: number; refuse: DomainError | null } | null> {
    // One counter per caller and UTC day, kept DAILY_KEY_TTL_S for the usage pages, counted
    // through this process's tally (DailyTallies: batched far from the limit, exact near it).
    const key = dailyQuotaKey(this.prefix, caller.id, utcDay());
    let consumed: number;
    try {
      const counted = this.tallies.count(key, caller.limit);
      consumed = typeof counted === 'number' ? counted : await counted;
    } catch {
      if (opts.failOpen) return null;
      throw unavailable();
    }
    const resetS = secondsUntilUtcMidnight();
    const limit = caller.limit;
    const refuse =
      limit !== null && consumed > limit
        ? new DomainError(
            'daily_quota_exceeded',
            `daily quota of ${limit} requests exceeded for this ${caller.kind === 'api_key' ? 'API key' : caller.kind === 'user' ? 'account' : 'IP address'}; it resets at 00:00 UTC`,
            { limit, reset_seconds: resetS },
            { headers: { 'Retry-After': String(resetS) } },
          )
        : null;
    return { limit, remaining: limit === null ? 0 : limit - consumed, resetS, refuse };
  }

  /**
   * Count one request against the caller's daily quota. When Redis does not answer: 503, or with
   * `failOpen` the request goes on uncounted (routes that must work while Redis is down).
   */
  dailyQuota(opts: { failOpen?: boolean } = {}): Middleware {
    return async (ctx, next) => {
      const counted = await this.countDaily(this.callerOf(ctx), opts);
      if (!counted) return next();
      setHeaders(ctx, counted.limit, counted.remaining, counted.resetS);
      if (counted.refuse) throw counted.refuse;
      await next();
    };
  }

  /**
   * Per-account limit (the signed-in user; the client IP for a caller without an account), for a
   * route to apply where it counts, e.g. only the requests that carry an upload.
   */
  perAccount(spec: LimitSpec): Middleware {
    this.limiterOf(spec);
    return async (ctx, next) => {
      const user = ctx.state.user as { id: number } | undefined;
      const counted = await this.count(spec, user ? `user:${user.id}` : `ip:${ctx.ip}`, user ? 'account' : 'route');
      setHeaders(ctx, spec.points, counted.remaining, counted.resetS);
      if (counted.refuse) throw counted.refuse;
      await next();
    };
  }

  private limiterOf(spec: LimitSpec): RateLimiterRedis {
    let limiter = this.perRoute.get(spec.key);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: rateLimitKeyPrefix(this.prefix, spec.key), points: spec.points, duration: spec.durationS });
      this.perRoute.set(spec.key, limiter);
    }
    return limiter;
  }

  /**
   * Count one request of client `ip` against a per-route limit: the RateLimit figures, with
   * `refuse` the 429 rate_limited when the limit is spent. 503 when Redis does not answer.
   */
  countPerIp(spec: LimitSpec, ip: string): Promise<{ remaining: number; resetS: number; refuse: DomainError | null }> {
    return this.count(spec, ip, 'route');
  }

  private async count(spec: LimitSpec, id: string, scope: 'route' | 'account'): Promise<{ remaining: number; resetS: number; refuse: DomainError | null }> {
    let res: RateLimiterRes;
    let refused = false;
    try {
      res = await this.limiterOf(spec).consume(id, 1);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw unavailable();
      res = err;
      refused = true;
    }
    const resetS = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return { remaining: res.remainingPoints, resetS, refuse: refused ? rateLimited(spec, scope, resetS) : null };
  }

  /**
   * perAccount's refusal, consuming nothing: 429 when the signed-in account has no request of `spec`
   * left, so a request can be refused before its body is read (the request is then counted by
   * perAccount as before). Anonymous requests pass.
   */
  perAccountSpent(spec: LimitSpec): Middleware {
    const limiter = this.limiterOf(spec);
    return async (ctx, next) => {
      const user = ctx.state.user as { id: number } | undefined;
      if (user) await refuseWhenSpent(ctx, limiter, spec, `user:${user.id}`, 'account');
      await next();
    };
  }

  /**
   * countPerIp's refusal, consuming nothing: 429 when client `ctx.ip` has no request of `spec` left,
   * so a request can be refused before its body is read (count it with countPerIp once it is known
   * to be one that counts).
   */
  perIpSpent(spec: LimitSpec): Middleware {
    const limiter = this.limiterOf(spec);
    return async (ctx, next) => {
      await refuseWhenSpent(ctx, limiter, spec, ctx.ip, 'route');
      await next();
    };
  }

  /** Per-client-IP limit for one route (declared as RouteDef.rateLimit). */
  perIp(spec: LimitSpec): Middleware {
    this.limiterOf(spec);
    return async (ctx, next) => {
      const counted = await this.countPerIp(spec, ctx.ip);
      setHeaders(ctx, spec.points, counted.remaining, counted.resetS);
      if (counted.refuse) throw counted.refuse;
      await next();
    };
  }

  /** Requests counted for an API key on each of the last `days` UTC days (oldest first). */
  async keyUsage(keyId: string, days: number, now = new Date()): Promise<{ day: string; count: number }[]> {
    const out: { day: string; count: number }[] = [];
    const keys: string[] = [];
    for (let i = days - 1; i >= 0; i--) {
      const d = utcDay(new Date(now.getTime() - i * 86400_000));
      out.push({ day: d, count: 0 });
      keys.push(apiKeyQuotaKey(this.prefix, keyId, d));
    }
    const values = await this.redis.mget(...keys);
    // Plus what this process counted and Redis had not yet seen when it answered.
    values.forEach((v, i) => (out[i].count = (v ? Number(v) : 0) + this.tallies.unsent(keys[i])));
    return out;
  }
}
