/**
 * Quotas and rate limits, counted in Redis (rate-limiter-flexible) so that every web process shares
 * them. Two kinds:
 *  - daily quota per caller, by UTC calendar day: an API key by its tier (free 1,000, builder 50,000,
 *    enterprise unlimited), a wallet session per user, an anonymous caller per IP;
 *  - per-route limits per client IP (e.g. provenance check 30/min), declared on the RouteDef.
 * Every counted response carries RateLimit-Limit / RateLimit-Remaining / RateLimit-Reset (seconds);
 * a refusal is 429 with Retry-After. A Redis failure is 503, never a silent bypass.
 */
import type { Context, Middleware } from 'koa';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { tierDailyQuota, type Tier } from '../auth/api-keys.js';
import type { Config } from '../config.js';
import { DomainError } from '../errors.js';
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

function unavailable(): DomainError {
  return new DomainError('service_unavailable', 'rate limiting is unavailable (Redis); retry shortly', null, { headers: { 'Retry-After': '5' } });
}

interface Caller {
  kind: 'api_key' | 'user' | 'anonymous';
  id: string;
  limit: number | null;
}

export class Limits {
  private readonly perRoute = new Map<string, RateLimiterRedis>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly config: Config,
  ) {}

  callerOf(ctx: Context): Caller {
    const key = ctx.state.apiKey as { id: string; tier: Tier } | undefined;
    if (key) return { kind: 'api_key', id: `key:${key.id}`, limit: tierDailyQuota[key.tier] };
    const user = ctx.state.user as { id: number } | undefined;
    if (user) return { kind: 'user', id: `user:${user.id}`, limit: this.config.SESSION_DAILY_QUOTA };
    return { kind: 'anonymous', id: `ip:${ctx.ip}`, limit: this.config.ANON_DAILY_QUOTA };
  }

  /**
   * Count one request against the caller's daily quota. When Redis does not answer: 503, or with
   * `failOpen` the request goes on uncounted (routes that must work while Redis is down).
   */
  dailyQuota(opts: { failOpen?: boolean } = {}): Middleware {
    return async (ctx, next) => {
      const caller = this.callerOf(ctx);
      // One counter per caller and UTC day, kept DAILY_KEY_TTL_S for the usage pages: one INCR per
      // request (on an auto-pipelining connection it shares a write with the other requests'
      // commands); the day's first request also sets the expiry, and every 1,000th sets it again
      // if it is missing (NX: an expiry already set is never pushed out), in case that first
      // EXPIRE was lost to a Redis hiccup.
      const key = dailyQuotaKey(this.prefix, caller.id, utcDay());
      let consumed: number;
      try {
        consumed = await this.redis.incr(key);
        if (consumed === 1 || consumed % 1000 === 0) await this.redis.expire(key, DAILY_KEY_TTL_S, 'NX');
      } catch {
        if (opts.failOpen) return next();
        throw unavailable();
      }
      const resetS = secondsUntilUtcMidnight();
      const limit = caller.limit;
      setHeaders(ctx, limit, limit === null ? 0 : limit - consumed, resetS);
      if (limit !== null && consumed > limit) {
        throw new DomainError(
          'daily_quota_exceeded',
          `daily quota of ${limit} requests exceeded for this ${caller.kind === 'api_key' ? 'API key' : caller.kind === 'user' ? 'account' : 'IP address'}; it resets at 00:00 UTC`,
          { limit, reset_seconds: resetS },
          { headers: { 'Retry-After': String(resetS) } },
        );
      }
      await next();
    };
  }

  /** Per-client-IP limit for one route (declared as RouteDef.rateLimit). */
  perIp(spec: { key: string; points: number; durationS: number }): Middleware {
    let limiter = this.perRoute.get(spec.key);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: rateLimitKeyPrefix(this.prefix, spec.key), points: spec.points, duration: spec.durationS });
      this.perRoute.set(spec.key, limiter);
    }
    const l = limiter;
    return async (ctx, next) => {
      let res: RateLimiterRes;
      let refused = false;
      try {
        res = await l.consume(ctx.ip, 1);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw unavailable();
        res = err;
        refused = true;
      }
      const resetS = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      setHeaders(ctx, spec.points, res.remainingPoints, resetS);
      if (refused) {
        throw new DomainError(
          'rate_limited',
          `rate limit of ${spec.points} requests per ${spec.durationS} s exceeded for this route; retry in ${resetS} s`,
          { limit: spec.points, window_seconds: spec.durationS, retry_after_seconds: resetS },
          { headers: { 'Retry-After': String(resetS) } },
        );
      }
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
    values.forEach((v, i) => (out[i].count = v ? Number(v) : 0));
    return out;
  }
}
