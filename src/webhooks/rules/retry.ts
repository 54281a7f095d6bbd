/**
 * The webhook retry schedule and what an attempt's outcome means. Pure.
 *
 * A delivery is attempted at once, then after each failure again after base x 1, 4, 16, 64, 256,
 * 1024, 4096, 5760, 5760 (base WEBHOOK_RETRY_BASE_MS, 5 s: 5 s, 20 s, 80 s, 5 min 20 s, 21 min 20 s,
 * 1 h 25 min, 5 h 41 min, 8 h, 8 h), each delay scaled by a random factor in [0.8, 1.2) so that
 * endpoints that failed together do not retry together. 10 attempts over about 23.6 hours
 * (the retry horizon); after the 10th failure the delivery is `failed` for good.
 * A 429 or 503 with Retry-After waits at least that long (at most an hour).
 */

const RETRY_FACTORS = [1, 4, 16, 64, 256, 1024, 4096, 5760, 5760] as const;
/** Attempts per delivery, the first included. */
export const MAX_ATTEMPTS = RETRY_FACTORS.length + 1;
const JITTER = 0.2;
/** The longest a Retry-After header can push a retry out. */
const MAX_RETRY_AFTER_MS = 3600_000;

/** Time from the first attempt to the last, without jitter: the retry horizon. */
export function retryHorizonMs(baseMs: number): number {
  return RETRY_FACTORS.reduce((a, f) => a + f * baseMs, 0);
}

/**
 * The delay before the next attempt after `attemptsMade` attempts (>= 1) have failed, or null when
 * the delivery has used all of them. `random` in [0, 1).
 */
export function nextRetryDelayMs(attemptsMade: number, baseMs: number, random: number, retryAfterMs: number | null = null): number | null {
  if (attemptsMade >= MAX_ATTEMPTS) return null;
  const factor = RETRY_FACTORS[Math.max(0, attemptsMade - 1)];
  const scheduled = Math.round(factor * baseMs * (1 - JITTER + 2 * JITTER * random));
  return retryAfterMs === null ? scheduled : Math.max(scheduled, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Retry-After as seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Number(v) * 1000;
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.max(0, t - now) : null;
}

type AttemptVerdict = 'succeeded' | 'retry' | 'gone';

/** 2xx is success; 410 Gone disables the endpoint; everything else (3xx included: redirects are never followed) is retried. */
export function verdictOf(status: number | null): AttemptVerdict {
  if (status !== null && status >= 200 && status < 300) return 'succeeded';
  if (status === 410) return 'gone';
  return 'retry';
}
