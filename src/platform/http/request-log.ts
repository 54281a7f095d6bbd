/**
 * The per-request log line of the web process (docs/operations.md: Request log).
 *
 * Every request is logged at info. A 5xx is logged whatever the level, by its kind:
 * - an uncoded 5xx or `internal_error` (a fault: the error middleware logged its stack) is error,
 *   every time;
 * - a coded 5xx the service answers on purpose (an unconfigured feature, a busy picture pool, a
 *   backend outage, a facilitator that does not answer: `*_not_configured`, `profile_picture_busy`,
 *   `service_unavailable`, ...) is warn, once per code per interval, with `suppressed`: how many of
 *   that code the interval held besides it. Its repeats are info lines like any request's.
 */
import type { Context } from 'koa';
import type { Logger } from '../logger.js';

export type RequestLog = (ctx: Context, requestId: string, started: number) => void;

interface RequestLogOptions {
  /** The interval of one warn line per code (default 60 s). */
  intervalMs?: number;
  now?: () => number;
}

const codeOf = (ctx: Context): string | undefined => (ctx.body as { error?: { code?: unknown } } | null | undefined)?.error?.code as string | undefined;

/** Once per key per interval: true for the first in an interval, with how many were skipped since the last one. */
function perInterval(intervalMs: number, now: () => number) {
  const seen = new Map<string, { at: number; skipped: number }>();
  return (key: string): { first: boolean; skipped: number } => {
    const t = now();
    const s = seen.get(key);
    if (s && t - s.at < intervalMs) {
      s.skipped++;
      return { first: false, skipped: 0 };
    }
    seen.set(key, { at: t, skipped: 0 });
    return { first: true, skipped: s?.skipped ?? 0 };
  };
}

export function requestLogger(log: Logger, opts: RequestLogOptions = {}): RequestLog {
  const logEvery = log.isLevelEnabled('info');
  const once = perInterval(opts.intervalMs ?? 60_000, opts.now ?? Date.now);
  return (ctx, requestId, started) => {
    if (!logEvery && ctx.status < 500) return;
    const line = { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round((performance.now() - started) * 10) / 10 };
    if (ctx.status < 500) return log.info(line, 'request');
    const code = codeOf(ctx);
    if (code === undefined || code === 'internal_error') return log.error({ ...line, code }, 'request');
    const { first, skipped } = once(code);
    if (first) log.warn({ ...line, code, suppressed: skipped }, 'request');
    else if (logEvery) log.info({ ...line, code }, 'request');
  };
}
