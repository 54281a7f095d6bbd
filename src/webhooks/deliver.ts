/**
 * One delivery run for one endpoint (the webhook-deliver job): read its due deliveries, POST each
 * as a Standard Webhooks message, record the outcome, until none are due.
 *
 * - At most WEBHOOK_ENDPOINT_CONCURRENCY requests to the endpoint are in flight. Runs of one
 *   endpoint do not overlap: every wake-up shares one BullMQ deduplication id (one active run, one
 *   follow-up), so this per-run cap is the endpoint's cap across all workers, and an attempt needs
 *   no lease: it is written once, with its outcome. A worker killed mid-attempt leaves the
 *   delivery due; BullMQ recovers the stalled run after JOB_LOCK_MS and it sends it again.
 * - A run that has worked for RUN_BUDGET_MS stops reading more, finishes what is in flight and queues
 *   a follow-up, so a busy endpoint takes turns with the others instead of holding a slot forever.
 * - Outbound requests go through safeFetch: private, loopback and link-local addresses are refused
 *   after DNS resolution unless OUTBOUND_ALLOW_PRIVATE; redirects are not followed (a 3xx is a
 *   failure); WEBHOOK_TIMEOUT_MS bounds the whole attempt; only EXCERPT_BYTES of the response body
 *   are read and kept.
 * - 2xx: succeeded. 410: the endpoint is disabled at once. Anything else (status, timeout,
 *   connection error) is retried.
 *
 * Retries: a failed attempt leaves the delivery pending with its next attempt time
 * (webhook_deliveries.next_attempt_at), set by scheduleRetry below from the retry schedule in
 * src/webhooks/rules/retry.ts (delays, jitter, Retry-After, attempts per delivery, the retry
 * horizon). The webhook-sweep job wakes the endpoint's run when that time comes. An endpoint whose
 * failures started longer than the retry horizon ago is disabled, with the reason on its record.
 */
import http from 'node:http';
import https from 'node:https';
import type { JobDeps } from '../../jobs/define.js';
import { nextRetryDelayMs, parseRetryAfter, retryHorizonMs, verdictOf } from './rules/retry.js';
import { safeFetch, SafeFetchError } from '../platform/safe-fetch.js';
import { clearEndpointFailing, dueDeliveries, disableEndpoint, hasDueDeliveries, markEndpointFailing, type DeliveryTarget, type DueDelivery } from './queries.js';
import { outcomeWriter } from './outcome-writer.js';
import { decryptSecret, signatureHeader, webhookKey } from './secrets.js';

/** Response bytes kept per attempt (the rest is not even read). */
export const EXCERPT_BYTES = 256;
/** How long a run takes on new deliveries before it yields to other endpoints. */
const RUN_BUDGET_MS = 20_000;
const USER_AGENT = 'squid-news-webhooks/1.0 (+https://www.standardwebhooks.com)';

type DeliverDeps = Pick<JobDeps, 'config' | 'db' | 'log' | 'enqueue'>;

/** The deduplication id every wake-up of one endpoint's run uses. */
const deliverDedupeId = (endpointId: number) => `webhook-deliver-${endpointId}`;

/** Queue a run for the endpoint (coalesced with a waiting one; kept as one follow-up while one runs). */
export function wakeEndpoint(enqueue: DeliverDeps['enqueue'], endpointId: number): Promise<string> {
  return enqueue('webhook-deliver', { endpoint_id: endpointId }, { dedupeId: deliverDedupeId(endpointId) });
}

let agents: { http: http.Agent; https: https.Agent } | null = null;
function keepAliveAgents() {
  // Idle sockets close after 4 s: before the 5 s keep-alive timeout of common servers (Node's own).
  agents ??= {
    http: new http.Agent({ keepAlive: true, maxFreeSockets: 256, timeout: 4000 }),
    https: new https.Agent({ keepAlive: true, maxFreeSockets: 256, timeout: 4000 }),
  };
  return agents;
}

/** The Standard Webhooks body: {type, timestamp, data}; `data` is inserted as the stored JSON text (byte for byte). */
export function deliveryBody(type: string, occurredAt: Date, dataJson: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(occurredAt.toISOString())},"data":${dataJson}}`;
}

export const messageId = (deliveryId: number) => `msg_${deliveryId}`;

function excerptOf(body: Buffer): string | null {
  if (body.length === 0) return null;
  // Lossy on purpose: a cut multi-byte character becomes U+FFFD; NUL cannot be stored in text.
  return new TextDecoder('utf-8').decode(body.subarray(0, EXCERPT_BYTES)).replace(/\u0000/g, '');
}

interface RunResult {
  endpoint_id: number;
  attempted: number;
  succeeded: number;
  failed: number;
  disabled: string | null;
}

/** One run's state, shared by its attempts in flight. */
interface Run {
  deps: DeliverDeps;
  key: Buffer;
  endpointId: number;
  result: RunResult;
  outcomes: ReturnType<typeof outcomeWriter>;
  /** Set once the endpoint is gone, inactive or disabled by this run: read no more deliveries. */
  stop: boolean;
  /** The endpoint's failure clock as this run knows it (undefined until the first read). */
  failingSince: Date | null | undefined;
}

/** What one POST of a delivery gave: the receiver's status (null without a response) or the error class. */
interface Exchange {
  startedAt: Date;
  status: number | null;
  error: string | null;
  excerpt: string | null;
  latencyMs: number;
  /** From Retry-After on a 429 or 503. */
  retryAfterMs: number | null;
}

/**
 * A delivery run for one endpoint: keeps up to WEBHOOK_ENDPOINT_CONCURRENCY attempts in flight
 * until no delivery is due, the endpoint is disabled, or the run's budget is spent (then a
 * follow-up run is queued).
 */
export async function deliverEndpoint(deps: DeliverDeps, endpointId: number, opts: { budgetMs?: number } = {}): Promise<RunResult> {
  const result: RunResult = { endpoint_id: endpointId, attempted: 0, succeeded: 0, failed: 0, disabled: null };
  const key = webhookKey(deps.config);
  if (!key) {
    deps.log.warn({ endpointId }, 'webhook delivery skipped: WEBHOOK_SECRET_KEY is not set');
    return result;
  }
  const run: Run = { deps, key, endpointId, result, outcomes: outcomeWriter(deps.db), stop: false, failingSince: undefined };
  const deadline = Date.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
  const more = await attemptUntilDone(run, deadline);
  // Out of budget with work left: queue a follow-up behind the other endpoints' runs.
  if (!run.stop && more && Date.now() >= deadline && (await hasDueDeliveries(deps.db, endpointId))) {
    await wakeEndpoint(deps.enqueue, endpointId).catch((err: unknown) =>
      deps.log.warn({ endpointId, err: (err as Error).message }, 'webhook follow-up not queued (the sweep will wake it)'),
    );
  }
  return result;
}

/** Reads due deliveries into free slots and attempts them until none are left in flight; returns whether the last read filled every slot (more may be due). */
async function attemptUntilDone(run: Run, deadline: number): Promise<boolean> {
  const { db, log, config } = run.deps;
  const cap = config.WEBHOOK_ENDPOINT_CONCURRENCY;
  const inflight = new Map<number, Promise<void>>();
  let more = true;
  for (;;) {
    if (!run.stop && more && inflight.size < cap && Date.now() < deadline) {
      const want = cap - inflight.size;
      const { target, due } = await dueDeliveries(db, run.endpointId, want, [...inflight.keys()]);
      if (!target || !target.active) {
        run.stop = true;
      } else {
        if (run.failingSince === undefined) run.failingSince = target.failing_since;
        more = due.length === want;
        for (const d of due) {
          const p: Promise<void> = attempt(run, target, d)
            .catch((err: unknown) =>
              log.error({ endpointId: run.endpointId, deliveryId: d.id, err: (err as Error).message }, 'webhook attempt could not be recorded (it stays due and is sent again)'),
            )
            .finally(() => inflight.delete(d.id));
          inflight.set(d.id, p);
        }
      }
    }
    if (inflight.size === 0) break;
    await Promise.race(inflight.values());
  }
  return more;
}

/** One attempt of one delivery: POST it, then record the outcome (success, retry or final failure). */
async function attempt(run: Run, target: DeliveryTarget, d: DueDelivery): Promise<void> {
  run.result.attempted++;
  if (d.data === null) {
    // Retention deleted the event before this attempt (deliveries are kept as long as events).
    run.result.failed++;
    await run.outcomes.record(d.id, { startedAt: new Date(), state: 'failed', nextAttemptAt: null, status: null, error: 'event_expired', latencyMs: 0, excerpt: null });
    return;
  }
  const ex = await postDelivery(run, target, d, d.data);
  const verdict = verdictOf(ex.status);
  if (verdict === 'succeeded') return recordSuccess(run, d, ex);
  run.result.failed++;
  if (verdict === 'gone') {
    await run.outcomes.record(d.id, { ...outcomeOf(ex), state: 'failed', nextAttemptAt: null });
    await disable(run, `the receiver answered 410 Gone at ${new Date().toISOString()}`);
    return;
  }
  await scheduleRetry(run, d, ex);
}

/** POST the delivery as a Standard Webhooks message, signed with the current secret (and the previous one during a rotation). */
async function postDelivery(run: Run, target: DeliveryTarget, d: DueDelivery, data: string): Promise<Exchange> {
  const { config } = run.deps;
  const startedAt = new Date();
  const body = deliveryBody(d.event_type, d.occurred_at, data);
  const secrets = [decryptSecret(run.key, target.secret_enc), ...(target.previous_secret_enc ? [decryptSecret(run.key, target.previous_secret_enc)] : [])];
  const msgId = messageId(d.id);
  const timestampS = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const ex: Exchange = { startedAt, status: null, error: null, excerpt: null, latencyMs: 0, retryAfterMs: null };
  try {
    const res = await safeFetch(target.url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'accept-encoding': 'identity',
        'webhook-id': msgId,
        'webhook-timestamp': String(timestampS),
        'webhook-signature': signatureHeader(secrets, msgId, timestampS, body),
      },
      userAgent: USER_AGENT,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      maxRedirects: 0,
      maxBytes: EXCERPT_BYTES,
      truncateBody: true,
      allowPrivate: config.OUTBOUND_ALLOW_PRIVATE,
      agents: keepAliveAgents(),
    });
    ex.status = res.status;
    ex.excerpt = excerptOf(res.body);
    if (res.status >= 300 && res.status < 400) ex.error = 'redirect_not_followed';
    if (res.status === 429 || res.status === 503) ex.retryAfterMs = parseRetryAfter(res.headers['retry-after'], Date.now());
  } catch (err) {
    ex.error = err instanceof SafeFetchError ? (err.code === 'network' ? 'connection_error' : err.code) : 'connection_error';
  }
  ex.latencyMs = Math.round(performance.now() - started);
  return ex;
}

const outcomeOf = (ex: Exchange) => ({ startedAt: ex.startedAt, status: ex.status, error: ex.error, latencyMs: ex.latencyMs, excerpt: ex.excerpt });

// The endpoint's failure clock is written before the delivery's outcome, so that whoever sees the
// outcome on the delivery also sees it on the endpoint record (failing_since).

async function recordSuccess(run: Run, d: DueDelivery, ex: Exchange): Promise<void> {
  run.result.succeeded++;
  if (run.failingSince !== null) {
    run.failingSince = null;
    await clearEndpointFailing(run.deps.db, run.endpointId);
  }
  await run.outcomes.record(d.id, { ...outcomeOf(ex), state: 'succeeded', nextAttemptAt: null, error: null });
}

/**
 * A failed attempt is retried: the delivery stays pending with its next attempt at the delay of
 * the retry schedule (src/webhooks/rules/retry.ts, nextRetryDelayMs: exponential backoff with
 * jitter, Retry-After honoured), or becomes `failed` once its attempts are used up. An endpoint
 * failing for longer than the retry horizon is disabled.
 */
async function scheduleRetry(run: Run, d: DueDelivery, ex: Exchange): Promise<void> {
  const { config, db } = run.deps;
  const delay = nextRetryDelayMs(d.attempts + 1, config.WEBHOOK_RETRY_BASE_MS, Math.random(), ex.retryAfterMs);
  run.failingSince ??= await markEndpointFailing(db, run.endpointId);
  await run.outcomes.record(d.id, {
    ...outcomeOf(ex),
    state: delay === null ? 'failed' : 'pending',
    nextAttemptAt: delay === null ? null : new Date(Date.now() + delay),
  });
  if (run.failingSince === null) return;
  const horizon = retryHorizonMs(config.WEBHOOK_RETRY_BASE_MS);
  if (Date.now() - run.failingSince.getTime() > horizon) {
    await disable(
      run,
      `no successful delivery since ${run.failingSince.toISOString()}: failing for longer than the retry horizon (${Math.round((horizon / 3600_000) * 10) / 10} h)`,
    );
  }
}

/** Disable the endpoint (its pending deliveries are cancelled) and stop the run; once per run. */
async function disable(run: Run, reason: string): Promise<void> {
  if (run.stop) return;
  run.stop = true;
  run.result.disabled = reason;
  await disableEndpoint(run.deps.db, run.endpointId, reason);
  run.deps.log.warn({ endpointId: run.endpointId, reason }, 'webhook endpoint disabled');
}
