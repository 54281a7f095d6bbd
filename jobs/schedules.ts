/** Recurring jobs the clock process upserts as BullMQ job schedulers (id -> job + timing). */
import type { JobName, JobPayload } from './index.js';

interface Schedule<N extends JobName = JobName> {
  id: string;
  job: N;
  payload: JobPayload<N>;
  /** Either a cron pattern (UTC) or a fixed interval in ms. */
  pattern?: string;
  everyMs?: number;
}

/** The relay's sweep interval: the longest an event waits when its wake-up was lost. */
const RELAY_SWEEP_MS = 2000;

/** The webhook sweep's interval: how late a retry can start after its time, and the longest a lost wake-up delays a delivery. */
const WEBHOOK_SWEEP_MS = 1000;

export const schedules: Schedule[] = [
  // Event log: relay whatever a lost wake-up left in the outbox; trim the log to EVENT_LOG_RETENTION_DAYS.
  { id: 'relay-events-sweep', job: 'relay-events', payload: {}, everyMs: RELAY_SWEEP_MS },
  { id: 'event-log-prune', job: 'event-log-prune', payload: {}, everyMs: 3600_000 },
  // Webhooks: wake endpoints with due deliveries (retries, lost wake-ups, leases of dead workers); trim old deliveries.
  { id: 'webhook-sweep', job: 'webhook-sweep', payload: {}, everyMs: WEBHOOK_SWEEP_MS },
  { id: 'webhook-prune', job: 'webhook-prune', payload: {}, everyMs: 3600_000 },
  // Submissions still on a provisional headline whose page-title job was lost or failed: enqueue it again (bounded).
  { id: 'page-title-sweep', job: 'page-title-sweep', payload: {}, everyMs: 60_000 },
  { id: 'publish-due', job: 'publish-due', payload: {}, everyMs: 60_000 },
  // Leaderboard snapshots for the current month (and the previous one until it is frozen).
  { id: 'leaderboards', job: 'leaderboards', payload: {}, everyMs: 5 * 60_000 },
  // Close the previous month at 00:05 UTC on the 1st: freeze, split the pool, publish the Merkle root.
  { id: 'monthly-distribution', job: 'monthly-distribution', payload: {}, pattern: '5 0 1 * *' },
  // Credibility weights and flags of the current and previous month, nightly (and right after midnight on the 1st, before the distribution).
  { id: 'credibility-recompute', job: 'credibility-recompute', payload: {}, pattern: '1 0 * * *' },
  // Agent chat: sandboxed agents whose violations aged out return to full_write; overdue challenges expire.
  { id: 'agent-trust-review', job: 'agent-trust-review', payload: {}, everyMs: 10 * 60_000 },
  // Hot scores of recent articles, so age decay moves the feed (votes, yaps and clicks also trigger a debounced recompute).
  { id: 'hot-scores', job: 'hot-scores', payload: {}, everyMs: 5 * 60_000 },
  // Wire ingestion: fan out one wire-fetch per due source; score new wire items and promote the best.
  { id: 'wire-fetch-due', job: 'wire-fetch-due', payload: {}, everyMs: 60_000 },
  { id: 'wire-promote', job: 'wire-promote', payload: {}, everyMs: 60_000 },
  // Provenance: drop headline-index rows older than the 30-day window (+1 day) and recompute its common words.
  { id: 'provenance-headlines-maintain', job: 'provenance-headlines-maintain', payload: {}, everyMs: 3600_000 },
  // Intel: refresh the default and recently requested trending/report parameter sets before their cache (INTEL_CACHE_TTL_S, 300 s) expires.
  { id: 'intel-trending', job: 'intel-trending', payload: {}, everyMs: 4 * 60_000 },
  { id: 'intel-report', job: 'intel-report', payload: {}, everyMs: 4 * 60_000 },
  // Retention: wire items and receipts (tombstoned), Telegram update ids, payment records past the accounting horizon, free API keys nobody holds or used.
  { id: 'wire-prune', job: 'wire-prune', payload: {}, everyMs: 3600_000 },
  { id: 'telegram-updates-prune', job: 'telegram-updates-prune', payload: {}, everyMs: 3600_000 },
  { id: 'payments-prune', job: 'payments-prune', payload: {}, pattern: '17 3 * * *' },
  { id: 'api-keys-prune', job: 'api-keys-prune', payload: {}, pattern: '23 3 * * *' },
  // Payments: settle x402 payments whose settle job was lost (still `verified` after 60 s).
  { id: 'settle-payment-sweep', job: 'settle-payment', payload: {}, everyMs: 60_000 },
  // Assets: add the assets and deployments of the operator's Token Lists (ASSET_TOKEN_LISTS_URLS), daily.
  { id: 'asset-token-lists-refresh', job: 'asset-token-lists-refresh', payload: {}, pattern: '41 4 * * *' },
  // Assets: every asset's mindshare (stories, articles, engagement over 24 h, 7 d, 30 d), read by the asset page and the intel report.
  { id: 'asset-mindshare', job: 'asset-mindshare', payload: {}, everyMs: 5 * 60_000 },
];
