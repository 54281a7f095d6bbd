/**
 * The only reader of process.env. Every process calls loadConfig() once at boot; a bad
 * environment fails fast with every offending variable listed (ConfigError).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const bool = z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off']).transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

const port = z.coerce.number().int().min(0).max(65535);

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL with scheme ${protocols.join(' or ')}`,
  );

const origin = z.string().refine((v) => {
  try {
    return new URL(v).origin === v;
  } catch {
    return false;
  }
}, 'must be an origin: scheme://host[:port], no path or trailing slash');

/** Every environment variable the service reads, with its default. README's table mirrors this. */
export const envSchema = z.object({
  /** development, test or production (production requires JWT_SECRET). */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** PostgreSQL connection URL (required; `npm start` starts an embedded server when unset). */
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  /** Redis URL (required; `npm start` starts redis-server when unset). Needs maxmemory-policy noeviction. */
  REDIS_URL: url(['redis:', 'rediss:']),
  /** web: HTTP port. */
  PORT: port.default(8000),
  /** ws: WebSocket port (path /ws/news/). */
  WS_PORT: port.default(8001),
  /** Interface web and ws listen on (0.0.0.0 on a platform that routes to the container). */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** The {host_url}: absolute links (feed next/previous, dashboards) and the sign-in message's domain and URI. */
  PUBLIC_BASE_URL: url(['http:', 'https:']).default('http://127.0.0.1:8000'),
  /** The {ws_url} the index page (GET /) links as the stream: default PUBLIC_BASE_URL's host on WS_PORT (ws:, wss: behind https). */
  PUBLIC_WS_URL: url(['ws:', 'wss:']).optional(),
  /** The {trusted_origin}: the only Origin accepted for cookie-authenticated writes and WebSocket handshakes. */
  TRUSTED_ORIGIN: origin.default('http://127.0.0.1:8000'),
  /** HS256 key for access/refresh tokens, >= 32 chars. Required in production; elsewhere generated once into DATA_DIR/jwt-secret. */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Let outbound fetches of user-supplied URLs reach private/loopback/link-local addresses (tests and development only; `npm start` sets it to true unless given). */
  OUTBOUND_ALLOW_PRIVATE: bool.default(false),
  /** Provenance text check: pg_trgm similarity between normalised headline keys a curated headline needs to be a candidate (lower finds more rewordings, costs more). */
  PROVENANCE_TRGM_THRESHOLD: z.coerce.number().min(0.05).max(1).default(0.45),
  /** Wire ingestion: deadline of one feed fetch (redirects and body included). */
  WIRE_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** Wire ingestion: largest feed body accepted (decoded). */
  WIRE_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(200 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  /** Wire ingestion: items taken from one feed response (the first N in feed order). */
  WIRE_MAX_ITEMS_PER_FETCH: z.coerce.number().int().min(1).max(100_000).default(2000),
  /** Wire ingestion: longest back-off between fetches of a failing source (doubles from its poll interval). */
  WIRE_BACKOFF_MAX_S: z.coerce
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .default(6 * 3600),
  /** Wire promotion: score (novelty x source weight) an item needs to enter the editors' queue automatically. */
  WIRE_PROMOTE_MIN_SCORE: z.coerce.number().min(0).max(10).default(0.6),
  /** Wire promotion: most items promoted automatically per run (the best first). */
  WIRE_PROMOTE_MAX_PER_RUN: z.coerce.number().int().min(0).max(1000).default(5),
  /** Behind a reverse proxy: take the client IP from the last X-Forwarded-For hop and the scheme from X-Forwarded-Proto. */
  TRUST_PROXY: bool.default(false),
  /** pino level for every process. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Prefix of every Redis key (BullMQ queues, event stream, nonces, limits): several deployments can share one Redis. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]+$/)
    .default('squid'),
  /** Approximate length the lifecycle-event stream is trimmed to (bounds WebSocket resume history). */
  EVENT_STREAM_MAXLEN: z.coerce.number().int().min(100).max(10_000_000).default(100_000),
  /** Event log: events older than this many days are deleted by the hourly event-log-prune job (GET /events/ answers 410 events_expired for older cursors). */
  EVENT_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Webhooks: AES-256-GCM key (base64 of 32 random bytes: `openssl rand -base64 32`) that encrypts endpoint signing secrets at rest. Unset: in production the webhook endpoints answer 503 webhooks_not_configured; elsewhere a fixed, public development key is used (logged as a warning). */
  WEBHOOK_SECRET_KEY: z
    .string()
    .refine((v) => /^[A-Za-z0-9+/_-]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === 32, 'must be base64 of exactly 32 bytes (openssl rand -base64 32)')
    .optional(),
  /** Webhooks: deadline of one delivery attempt (connect, request, response headers and body); slower is a failure, retried. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Webhooks: first retry delay; later ones grow x4 up to 8 h (x5760), 10 attempts over ~23.6 h at the default 5000 (README: Webhooks). */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(600_000).default(5000),
  /** Webhooks: requests in flight to one endpoint at most (one delivery run per endpoint at a time, across all workers). */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  /** Webhooks: endpoints one worker process delivers to at once (keep it above the number of endpoints that may hang at the same time). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(5000).default(500),
  /** ws process: connection caps (over either, the socket is accepted and closed with 4003). */
  WS_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(500),
  /** ws process: stream connections (WebSocket and SSE) from one client address; over it, 4003 or SSE 503 capacity_exceeded. `npm start` sets 50 unless given. */
  WS_MAX_PER_IP: z.coerce.number().int().min(1).max(1_000_000).default(5),
  /** ws process: heartbeat frame interval; a socket that missed the previous ping's pong is dropped. */
  WS_HEARTBEAT_MS: z.coerce.number().int().min(10).max(600_000).default(25_000),
  /** ws process: batch window and size of {events, t} frames. */
  WS_BATCH_MS: z.coerce.number().int().min(1).max(60_000).default(200),
  WS_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  /** ws process: events a connection may have waiting before it gets {type: reconcile, reason: backlog}. */
  WS_QUEUE_MAX: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  /** Largest JSON or form body accepted (413 above it). */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024),
  /** Largest request head (request line + headers) web and ws accept; larger gets 431 and the connection is closed. */
  HTTP_MAX_HEADER_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024)
    .default(16 * 1024),
  /** web and ws: a client must finish sending its request headers within this (slowloris guard; checked every second). */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
  /** web: a client must finish sending its whole request (headers and body) within this, else 408 and the connection is closed. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** Bearer token for GET /metrics on web and ws (Prometheus). Unset: the endpoint is disabled (404). */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(512).optional(),
  /** web, worker, clock, ws metrics: the longest a command on a `command` Redis connection (web's request path) waits for its reply; past it the command fails as a Redis outage (the API answers 503 service_unavailable) and, until Redis answers again, further commands fail at once. Also the longest a request waits for a job's event connection to become ready (its first wait for that job, e.g. a submission's page title) before answering 503. */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** How long web waits for a job whose result the response needs (auto-headline, provenance check) before its fallback. */
  JOB_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(3000),
  /** Editors' console (/editor/): the live stream the page's EventSource opens (the ws process's /sse/news/). Unset: PUBLIC_BASE_URL's host on WS_PORT. */
  EDITOR_STREAM_URL: url(['http:', 'https:']).optional(),
  /** Editors' console: how long the item page waits for its provenance check before rendering it as pending (the queue page never waits). */
  EDITOR_PROVENANCE_WAIT_MS: z.coerce.number().int().min(0).max(10_000).default(1500),
  /** Editors' console: the queue page shows at most this many waiting items (newest first). */
  EDITOR_QUEUE_LIMIT: z.coerce.number().int().min(10).max(5000).default(500),
  /** Hot scores: articles published (or submitted) within this many hours are recomputed; older ones keep their last score. */
  HOT_SCORE_WINDOW_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .default(168),
  /** Hot scores: votes, yaps and clicks on an article trigger one recompute of it at most this often (debounce window). */
  HOT_SCORE_DEBOUNCE_MS: z.coerce.number().int().min(0).max(3_600_000).default(5000),
  /** Clicks: a repeat click by the same reader (user, or IP + user agent) within this window is not counted again; 0 counts every click. */
  CLICK_DEDUPE_S: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .default(3600),
  /** Auth cache (API-key lookups, roles): how long a web process trusts the auth generation it last read before re-reading it; a revocation or role change takes effect in every web process within this time. 0 re-reads it on every authenticated lookup. */
  AUTH_CACHE_CHECK_MS: z.coerce.number().int().min(0).max(5000).default(200),
  /** Graceful-shutdown budget after SIGTERM before a process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** BullMQ lock duration: a job of a crashed worker is picked up by another after this long. */
  JOB_LOCK_MS: z.coerce.number().int().min(500).max(600_000).default(30_000),
  /** Upper bound on each job type's concurrency in one worker process. */
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Local state directory of the dev launcher (embedded Postgres, Redis, generated JWT secret). */
  DATA_DIR: z.string().min(1).default('.data'),
  /** Set by the dev launcher: exit when its stdin pipe closes (the launcher died, even by SIGKILL). */
  EXIT_WITH_PARENT: bool.default(false),
  /** Requests per UTC day for a signed-in wallet session (API keys use their tier's quota). */
  SESSION_DAILY_QUOTA: z.coerce.number().int().min(1).default(10_000),
  /** API-key sign-ups per hour from one client address, and per account when signed in (over it: 429 rate_limited). */
  API_KEY_SIGNUPS_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(5),
  /** Free keys not linked to an account and never used are deleted this many days after their sign-up (api-keys-prune). */
  API_KEY_UNUSED_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  /** Requests per UTC day for an anonymous client IP. */
  ANON_DAILY_QUOTA: z.coerce.number().int().min(1).default(1_000),
  /** Chain ID written into the Sign-In with Ethereum message (1 = Ethereum mainnet). */
  SIWE_CHAIN_ID: z.coerce.number().int().min(1).default(1),
  /** PostgreSQL pool size per process. */
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** Run the hot paths' statements (the per-vote credibility update, the page-title write) as named prepared statements, parsed and planned once per connection. Set false behind a connection pooler in transaction mode that does not track prepared statements (PgBouncer before 1.21, or without max_prepared_statements). */
  DB_PREPARED_STATEMENTS: bool.default(true),
  /** Where profile pictures were stored before they moved into PostgreSQL: read only by the media migration and `npm run media:import`. */
  PROFILE_PICTURES_DIR: z.string().min(1).default('.data/profile-pictures'),
  /** web: bytes of pictures kept in each process's memory for serving (0 reads every request from PostgreSQL). */
  MEDIA_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .max(4 * 1024 * 1024 * 1024)
    .default(32 * 1024 * 1024),
  /** web: longest a cached picture is served by a process after it was deleted (e.g. replaced by its owner). */
  MEDIA_CACHE_TTL_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** web: picture uploads decoded and re-encoded at once per web process, in its picture process (a child at the lowest CPU priority; each operation holds one thread and about one core at that priority, and its decoded frames in memory). */
  PICTURE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  /** web: picture uploads waiting for a slot per process; one more is refused with 503 profile_picture_busy and Retry-After. */
  PICTURE_QUEUE_MAX: z.coerce.number().int().min(0).max(1000).default(4),
  /** web: CPU priority (nice, 0 to 19) of the picture process's threads: 19 gives every other process the cores first; a busy machine then answers uploads 503 after PICTURE_TIMEOUT_MS rather than slowing requests. */
  PICTURE_NICE: z.coerce.number().int().min(0).max(19).default(19),
  /** web: longest one picture operation may take in the picture process; beyond it the process is killed (and forked again on the next upload) and the upload is 503 profile_picture_busy. */
  PICTURE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** Picture uploads (PUT /wallet/profile/ with a file) per account per hour; one more is 429 rate_limited. */
  PROFILE_PICTURE_UPLOADS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(30),
  /** Picture uploads per client address per hour, over every account behind it (one more is 429 rate_limited); once spent, a multipart profile edit from that address is refused before its body is read. */
  PROFILE_PICTURE_UPLOADS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(120),
  /** Retention: wire items (and their receipts) ingested longer ago than this are deleted, leaving a tombstone (normalised-URL hash + source) so they are never re-ingested. */
  WIRE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Retention: wire tombstones are kept this long after their item was deleted (a feed listing an item older than this would ingest it again). */
  WIRE_TOMBSTONE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36500).default(730),
  /** Retention: Telegram update ids (webhook redelivery guard) are kept this long; Telegram stops redelivering after 24 h. */
  TELEGRAM_UPDATES_RETENTION_DAYS: z.coerce.number().int().min(2).max(3650).default(7),
  /** Retention: settled or failed payment records older than this (the accounting horizon, default 10 years) are deleted; their replay keys stay as tombstones. */
  PAYMENT_RETENTION_DAYS: z.coerce.number().int().min(30).max(36500).default(3653),
  /** Release phase: how long a release waits for another release's migration lock before it fails. */
  RELEASE_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(600_000),
  /** Retention: rows each retention job deletes per transaction (small, so no lock is held for long). */
  RETENTION_BATCH: z.coerce.number().int().min(10).max(100_000).default(1000),
  /** Retention: pause between two batches of a retention job, leaving the database to the hot path. */
  RETENTION_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(10),
  /** Agent chat (Telegram). Optional: without them the service boots and those endpoints answer 503 telegram_not_configured. */
  TELEGRAM_BOT_TOKEN: z
    .string()
    .regex(/^\d+:[A-Za-z0-9_-]{20,}$/, 'must look like 123456:ABC-... (from @BotFather)')
    .optional(),
  TELEGRAM_API_BASE_URL: url(['http:', 'https:']).default('https://api.telegram.org'),
  TELEGRAM_CHAT_ID: z
    .string()
    .regex(/^-?\d{1,16}$/, 'must be the numeric chat id, e.g. -1001234567890')
    .optional(),
  TELEGRAM_WEBHOOK_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9_-]{16,256}$/, 'must be 16-256 characters of A-Z a-z 0-9 _ -')
    .optional(),
  /** The bot's own username; when set, `/register@OtherBot` is ignored (addressed to another bot). */
  TELEGRAM_BOT_USERNAME: z
    .string()
    .regex(/^@?[A-Za-z0-9_]{5,32}$/)
    .optional(),
  AGENT_REGISTRATION_WINDOW_S: z.coerce.number().int().min(1).max(86_400).default(600),
  HANDSHAKE_TTL_S: z.coerce.number().int().min(1).max(86_400).default(600),
  AGENT_INVITE_TTL_S: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(3600),
  /** Intel: how long a computed trending result or report stays cached per parameter set (the worker refreshes the common ones on a schedule). */
  INTEL_CACHE_TTL_S: z.coerce.number().int().min(1).max(86_400).default(300),
  /** x402: address that receives payments (report, sponsored posts, mainnet fallback). Unset: paid endpoints answer 503 payments_not_configured; builder keys still work. */
  X402_PAY_TO: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be an Ethereum address (0x + 40 hex digits)')
    .optional(),
  /** x402: CAIP-2 network of the `exact` payment (eip155:8453 Base; eip155:84532 Base Sepolia for testing). */
  X402_NETWORK: z
    .string()
    .regex(/^eip155:[1-9]\d{0,15}$/, 'must be a CAIP-2 EVM network, e.g. eip155:8453')
    .default('eip155:8453'),
  /** x402: EIP-3009 token contract; unset = the network's USDC (Base 0x8335...2913, Base Sepolia 0x036C...CF7e). */
  X402_ASSET: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a token contract address')
    .optional(),
  /** x402: EIP-712 domain name and version of X402_ASSET (required for a token that is not the network's USDC). */
  X402_ASSET_NAME: z.string().min(1).max(100).optional(),
  X402_ASSET_VERSION: z.string().min(1).max(20).optional(),
  /** x402: price of one intel report in the asset's atomic units (250000 = 0.25 USDC); the mainnet fallback uses the same figure. */
  X402_PRICE_ATOMIC: z.coerce.number().int().min(1).max(1e15).default(250_000),
  /** x402: maxTimeoutSeconds advertised in the payment requirements (the client's authorization validity). */
  X402_MAX_TIMEOUT_S: z.coerce.number().int().min(10).max(86_400).default(300),
  /** x402: facilitator base URL; the settle-payment job POSTs to <url>/settle (and <url>/verify when X402_VERIFY_MODE=facilitator). */
  X402_FACILITATOR_URL: url(['http:', 'https:']).default('https://x402.org/facilitator'),
  /** x402: `local` checks the EIP-3009 signature, amount, recipient and validity window in-process (no RPC); `facilitator` also asks the facilitator's /verify (balance, on-chain nonce). */
  X402_VERIFY_MODE: z.enum(['local', 'facilitator']).default('local'),
  /**
   * x402: when the facilitator settles a payment. sync (default): verify, settle through the
   * facilitator, and only then serve the resource with a truthful PAYMENT-RESPONSE (transaction hash);
   * a refused settlement is 402 and nothing is delivered. deferred: serve after local verification and
   * settle in the settle-payment job (faster, but the server carries the risk that settlement fails);
   * PAYMENT-RESPONSE then says success false, errorReason settlement_pending, and extra.status_url.
   */
  X402_SETTLEMENT_MODE: z.enum(['sync', 'deferred']).default('sync'),
  /** x402: per-request timeout of facilitator calls. */
  X402_FACILITATOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  /** Sponsored posts (tier express): price in X402_ASSET atomic units (25000000 = 25 USDC); the mainnet fallback uses the same figure. */
  SPONSORED_PRICE_ATOMIC: z.coerce.number().int().min(1).max(1e15).default(25_000_000),
  /** Mainnet fallback (X-Payment-Tx / X-Payment-From): Ethereum mainnet JSON-RPC URL. Unset: the fallback answers 503 payment_fallback_unavailable. */
  ETH_RPC_URL: url(['http:', 'https:']).optional(),
  /** Mainnet fallback: blocks a transfer needs (its own block included) before it pays. */
  MAINNET_MIN_CONFIRMATIONS: z.coerce.number().int().min(1).max(10_000).default(12),
  /** Assets: Token Lists URLs (the @uniswap/token-lists format, comma-separated) the daily asset-token-lists-refresh job adds assets and deployments from. Empty: the job does nothing. */
  ASSET_TOKEN_LISTS_URLS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(url(['http:', 'https:'])).max(20)),
  /** Wire promotion by corroboration: a story newly covered by this many independent sources (syndicated copies not counted) gets one queue item, from its earliest wire member (docs/stories.md). 0 turns the rule off. */
  WIRE_PROMOTE_MIN_SOURCES: z.coerce.number().int().min(0).max(100).default(2),
  /** Credibility recompute: a run's lease (renewed with every staged batch); a run whose runner died is taken over once it runs out. It must outlast the read and detection of a month. */
  CREDIBILITY_RUN_LEASE_S: z.coerce.number().int().min(1).max(3600).default(120),
});

type Env = z.infer<typeof envSchema>;
export type Config = Omit<Env, 'JWT_SECRET'> & { JWT_SECRET: string };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Parse and validate an environment (defaults to process.env). Throws ConfigError listing every bad key. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const env = Object.fromEntries(Object.keys(envSchema.shape).map((k) => [k, source[k] === '' ? undefined : source[k]]));
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '?');
      problems.push(`${key}: ${source[key] === undefined ? 'is required' : issue.message}`);
    }
  }
  if (parsed.success && !parsed.data.JWT_SECRET && parsed.data.NODE_ENV === 'production') {
    problems.push('JWT_SECRET: is required in production');
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const data = parsed.data;
  return { ...data, JWT_SECRET: data.JWT_SECRET ?? devJwtSecret(data.DATA_DIR) };
}

/** Outside production a missing JWT_SECRET is generated once into DATA_DIR and reused by every process. */
function devJwtSecret(dataDir: string): string {
  const file = path.resolve(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}

/** Variables of the dev launcher and the test set-up (README's table lists them too). */
export const launcherEnvSchema = z.object({
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  PORT: port.default(8000),
  WS_PORT: port.default(8001),
  /** Port of the embedded PostgreSQL that `npm start` runs when DATABASE_URL is unset. */
  PG_PORT: port.default(54329),
  /** Port of the redis-server that `npm start` runs when REDIS_URL is unset. */
  REDIS_PORT: port.default(63799),
  DATA_DIR: z.string().min(1).default('.data'),
  /** Load the demo data set into an empty database at `npm start`. */
  SEED_DEMO: bool.default(true),
  /** Set by CI; the launcher and tests print less. */
  CI: bool.default(false),
  // The launcher points these at its own PORT when unset; loadConfig validates them for the children.
  TRUSTED_ORIGIN: z.string().optional(),
  PUBLIC_BASE_URL: z.string().optional(),
  /** Launcher output: `pretty` renders pino lines as `time LEVEL msg k=v`, `json` passes them through. */
  DEV_LOG_FORMAT: z.enum(['pretty', 'json']).default('pretty'),
  /** Disable (NO_COLOR) or force (FORCE_COLOR) colours in the launcher's prefixed output. */
  NO_COLOR: z.string().optional(),
  FORCE_COLOR: z.string().optional(),
});

/**
 * What the dev launcher and the test set-up need before a full config can exist (they create the
 * databases the full config points at). Read here so that process.env has a single reader.
 */
export function launcherEnv(source: Record<string, string | undefined> = process.env) {
  const schema = launcherEnvSchema;
  const picked = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, source[k] === '' ? undefined : source[k]]));
  const parsed = schema.safeParse(picked);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  }
  return parsed.data;
}

/** A copy of the current environment, for launching child processes with overrides. */
export function childEnv(overrides: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) base[k] = v;
  return { ...base, ...overrides };
}
