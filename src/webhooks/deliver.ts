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
 *   connection error): retried on the schedule of src/webhooks/rules/retry.ts; an endpoint whose
 *   failures started longer than the retry horizon ago is disabled, with the reason on its record.
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

export async function deliverEndpoint(deps: DeliverDeps, endpointId: number, opts: { budgetMs?: number } = {}): Promise<RunResult> {
  const { config, db, log } = deps;
  const result: RunResult = { endpoint_id: endpointId, attempted: 0, succeeded: 0, failed: 0, disabled: null };
  const key = webhookKey(config);
  if (!key) {
    log.warn({ endpointId }, 'webhook delivery skipped: WEBHOOK_SECRET_KEY is not set');
    return result;
  }
  const outcomes = outcomeWriter(db);
  const cap = config.WEBHOOK_ENDPOINT_CONCURRENCY;
  const deadline = Date.now() + (opts.budgetMs ?? RUN_BUDGET_MS);
  const inflight = new Map<number, Promise<void>>();
  let stop = false;
  let more = true;
  let failingSince: Date | null | undefined;

  const disable = async (reason: string) => {
    if (stop) return;
    stop = true;
    result.disabled = reason;
    await disableEndpoint(db, endpointId, reason);
    log.warn({ endpointId, reason }, 'webhook endpoint disabled');
  };

  const attempt = async (target: DeliveryTarget, d: DueDelivery): Promise<void> => {
    result.attempted++;
    const startedAt = new Date();
    if (d.data === null) {
      // Retention deleted the event before this attempt (deliveries are kept as long as events).
      result.failed++;
      await outcomes.record(d.id, { startedAt, state: 'failed', nextAttemptAt: null, status: null, error: 'event_expired', latencyMs: 0, excerpt: null });
      return;
    }
    const body = deliveryBody(d.event_type, d.occurred_at, d.data);
    const secrets = [decryptSecret(key, target.secret_enc), ...(target.previous_secret_enc ? [decryptSecret(key, target.previous_secret_enc)] : [])];
    const msgId = messageId(d.id);
    const timestampS = Math.floor(Date.now() / 1000);
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let excerpt: string | null = null;
    let retryAfterMs: number | null = null;
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
      status = res.status;
      excerpt = excerptOf(res.body);
      if (status >= 300 && status < 400) error = 'redirect_not_followed';
      if (status === 429 || status === 503) retryAfterMs = parseRetryAfter(res.headers['retry-after'], Date.now());
    } catch (err) {
      error = err instanceof SafeFetchError ? (err.code === 'network' ? 'connection_error' : err.code) : 'connection_error';
    }
    const latencyMs = Math.round(performance.now() - started);
    const verdict = verdictOf(status);
    // The endpoint's failure clock is written before the delivery's outcome, so that whoever sees
    // the outcome on the delivery also sees it on the endpoint record (failing_since).
    if (verdict === 'succeeded') {
      result.succeeded++;
      if (failingSince !== null) {
        failingSince = null;
        await clearEndpointFailing(db, endpointId);
      }
      await outcomes.record(d.id, { startedAt, state: 'succeeded', nextAttemptAt: null, status, error: null, latencyMs, excerpt });
      return;
    }
    result.failed++;
    if (verdict === 'gone') {
      await outcomes.record(d.id, { startedAt, state: 'failed', nextAttemptAt: null, status, error, latencyMs, excerpt });
      await disable(`the receiver answered 410 Gone at ${new Date().toISOString()}`);
      return;
    }
    const delay = nextRetryDelayMs(d.attempts + 1, config.WEBHOOK_RETRY_BASE_MS, Math.random(), retryAfterMs);
    failingSince ??= await markEndpointFailing(db, endpointId);
    await outcomes.record(d.id, {
      startedAt,
      state: delay === null ? 'failed' : 'pending',
      nextAttemptAt: delay === null ? null : new Date(Date.now() + delay),
      status,
      error,
      latencyMs,
      excerpt,
    });
    if (failingSince === null) return;
    const horizon = retryHorizonMs(config.WEBHOOK_RETRY_BASE_MS);
    if (Date.now() - failingSince.getTime() > horizon) {
      await disable(`no successful delivery since ${failingSince.toISOString()}: failing for longer than the retry horizon (${Math.round((horizon / 3600_000) * 10) / 10} h)`);
    }
  };

  for (;;) {
    if (!stop && more && inflight.size < cap && Date.now() < deadline) {
      const want = cap - inflight.size;
      const { target, due } = await dueDeliveries(db, endpointId, want, [...inflight.keys()]);
      if (!target || !target.active) {
        stop = true;
      } else {
        if (failingSince === undefined) failingSince = target.failing_since;
        more = due.length === want;
        for (const d of due) {
          const p: Promise<void> = attempt(target, d)
            .catch((err: unknown) =>
              log.error({ endpointId, deliveryId: d.id, err: (err as Error).message }, 'webhook attempt could not be recorded (it stays due and is sent again)'),
            )
            .finally(() => inflight.delete(d.id));
          inflight.set(d.id, p);
        }
      }
    }
    if (inflight.size === 0) break;
    await Promise.race(inflight.values());
  }
  // Out of budget with work left: queue a follow-up behind the other endpoints' runs.
  if (!stop && more && Date.now() >= deadline && (await hasDueDeliveries(db, endpointId))) {
    await wakeEndpoint(deps.enqueue, endpointId).catch((err: unknown) =>
      log.warn({ endpointId, err: (err as Error).message }, 'webhook follow-up not queued (the sweep will wake it)'),
    );
  }
  return result;
}
