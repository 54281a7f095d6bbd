/**
 * Wire use cases: fetching one source and ingesting its new items, and scoring new items and
 * promoting the best into the editors' queue. The jobs wire-fetch and wire-promote call these.
 *
 * A fetch is a conditional GET with the stored ETag / Last-Modified (a 304 changes nothing but the
 * schedule) through safeFetch (private addresses refused unless OUTBOUND_ALLOW_PRIVATE), with
 * WIRE_FETCH_TIMEOUT_MS and WIRE_FETCH_MAX_BYTES. RSS 2.0 / RSS 1.0 / Atom / JSON Feed
 * (rules/feed-parse.ts); items are keyed by normalised URL, so a re-run or a concurrent run of the
 * same or another source never stores an item twice. Each item created gets a `news.tsunami` event
 * in the transaction that stores it (its `id` is the wire item id, `status` `ingested`, `origin`
 * `tsunami`, `date_posted` our ingest time).
 *
 * Failures (network, timeout, HTTP error, malformed feed) are logged and recorded on the source,
 * whose next fetch backs off exponentially (poll interval x 2^failures, capped at
 * WIRE_BACKOFF_MAX_S). Transient failures (network, timeout, 5xx, 429, 408) throw a plain Error, so
 * the queue retries them with backoff; malformed feeds and other 4xx throw PermanentJobError and
 * wait for the next scheduled fetch.
 *
 * Promotion (rules/promotion.ts for the scores): items of the last 24 hours with score >=
 * WIRE_PROMOTE_MIN_SCORE are promoted, best first, at most WIRE_PROMOTE_MAX_PER_RUN per run, each as
 * a `submitted` article with origin `tsunami` (events `news.tsunami_promoted`, public, and
 * `news.submitted`, staff). Novelty is checked again just before promotion (another article may have
 * arrived since scoring), and two items of one run that tell the same story are promoted once.
 * An item already assigned to a story claims it (stories.promoted_at): a story gets one automatic
 * queue item, whether from this job or from the story assigner's corroboration rule
 * (src/stories/corroboration.ts), never one of each.
 */
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { PermanentJobError } from '../platform/errors/permanent-job-error.js';
import type { Logger } from '../platform/logger.js';
import { safeFetch, SafeFetchError, type SafeFetchResponse } from '../platform/safe-fetch.js';
import { articlesByUrl, headlineCandidates, HEADLINE_MATCH_THRESHOLD, headlineSimilarity, LOOKBACK_MS, provenanceSettings } from '../provenance/index.js';
import {
  claimUnscored,
  findSource,
  ingestItems,
  promoteWireItemIn,
  promotionCandidates,
  recordFetchFailure,
  recordFetchNotModified,
  recordFetchSuccess,
  setScore,
} from './queries.js';
import { backoffSeconds, FEED_ACCEPT, FEED_TYPES, isTransientStatus, toIncoming } from './rules/fetch-policy.js';
import { FeedParseError, parseFeed } from './rules/feed-parse.js';
import { CANDIDATE_HOURS, COVERED_STATUSES, noveltyFromSimilarity, promotionScore } from './rules/promotion.js';

/** What the wire use cases need: the database, the configuration and a logger. */
interface WireDeps {
  config: Config;
  db: Db;
  log: Logger;
}

type Source = NonNullable<Awaited<ReturnType<typeof findSource>>>;

/** One fetch of one source: its settings, clock and the way it records a failure. */
interface FetchRun {
  deps: WireDeps;
  source: Source;
  settings: ReturnType<typeof provenanceSettings>;
  now: Date;
  nextFetchAt: Date;
  log: Logger;
}

/** Records the failure on the source, then throws: a plain Error to retry, PermanentJobError not to. */
async function failFetch(run: FetchRun, status: number | null, error: string, retry: boolean): Promise<never> {
  const { source, settings } = run;
  const failures = await recordFetchFailure(run.deps.db, source.id, {
    now: run.now,
    status,
    error,
    backoffS: (n) => backoffSeconds(source.poll_interval_s, n, settings.wireBackoffMaxS),
  });
  run.log.warn({ status, error, failures, retry }, 'wire source fetch failed');
  throw retry ? new Error(`wire source ${source.id}: ${error}`) : new PermanentJobError(`wire source ${source.id}: ${error}`);
}

/** The conditional GET of the source's feed; a network failure is recorded and thrown. */
async function requestFeed(run: FetchRun): Promise<SafeFetchResponse> {
  const { source, settings } = run;
  const headers: Record<string, string> = { accept: FEED_ACCEPT };
  if (source.etag) headers['if-none-match'] = source.etag;
  if (source.last_modified) headers['if-modified-since'] = source.last_modified;
  try {
    return await safeFetch(source.url, {
      headers,
      timeoutMs: settings.wireFetchTimeoutMs,
      maxBytes: settings.wireFetchMaxBytes,
      allowPrivate: run.deps.config.OUTBOUND_ALLOW_PRIVATE,
      accept: FEED_TYPES,
    });
  } catch (err) {
    if (err instanceof SafeFetchError) {
      const transient = err.code === 'timeout' || err.code === 'network' || err.code === 'dns_failed';
      return failFetch(run, null, `${err.code}: ${err.message}`, transient);
    }
    throw err;
  }
}

/** A 2xx feed body: parsed, its new items stored, the success recorded on the source. */
async function ingestFeed(run: FetchRun, res: SafeFetchResponse) {
  const { deps, source, settings, now } = run;
  let feed;
  try {
    feed = parseFeed(res.text(), { baseUrl: res.url, contentType: res.headers['content-type'] });
  } catch (err) {
    if (err instanceof FeedParseError) return failFetch(run, res.status, `parse: ${err.message}`, false);
    throw err;
  }
  const incoming = toIncoming(feed.items, settings.wireMaxItemsPerFetch);
  const { created, receipts } = await ingestItems(deps.db, { id: source.id, name: source.name, url: source.url }, incoming, now);
  await recordFetchSuccess(deps.db, source.id, {
    now,
    status: res.status,
    etag: res.headers.etag ?? null,
    lastModified: res.headers['last-modified'] ?? null,
    format: feed.format,
    created: created.length,
    nextFetchAt: run.nextFetchAt,
  });
  run.log.info({ format: feed.format, items: feed.items.length, skipped: feed.skipped, created: created.length, receipts }, 'wire source fetched');
  return { source_id: source.id, status: res.status, format: feed.format, items: incoming.length, skipped: feed.skipped, created: created.length, receipts };
}

/** Fetch one wire source and ingest its new items (see the module comment for failures and retries). */
export async function fetchWireSource(deps: WireDeps, sourceId: number) {
  const source = await findSource(deps.db, sourceId);
  if (!source || !source.enabled) return { source_id: sourceId, skipped: true as const };
  const now = new Date();
  const run: FetchRun = {
    deps,
    source,
    settings: provenanceSettings(deps.config),
    now,
    nextFetchAt: new Date(now.getTime() + source.poll_interval_s * 1000),
    log: deps.log.child({ job: 'wire-fetch', source_id: source.id, source: source.name }),
  };
  const res = await requestFeed(run);
  if (res.status === 304) {
    await recordFetchNotModified(deps.db, source.id, now, run.nextFetchAt);
    return { source_id: source.id, status: 304, items: 0, created: 0 };
  }
  if (res.status < 200 || res.status >= 300) return failFetch(run, res.status, `HTTP ${res.status}`, isTransientStatus(res.status));
  return ingestFeed(run, res);
}

/** How novel an item's story is against the articles of the lookback window (rules/promotion.ts). */
async function novelty(db: Db, item: { title: string; normalized_url: string }, now: Date, trgmThreshold: number): Promise<number> {
  const since = new Date(now.getTime() - LOOKBACK_MS);
  if ((await articlesByUrl(db, item.normalized_url, since, COVERED_STATUSES)).length > 0) return 0;
  const candidates = await headlineCandidates(db, item.title, since, { trgmThreshold, limit: 20, statuses: COVERED_STATUSES });
  return noveltyFromSimilarity(candidates.reduce((m, c) => Math.max(m, headlineSimilarity(item.title, c.headline)), 0));
}

/** Promotes the best scored items of the last CANDIDATE_HOURS, up to WIRE_PROMOTE_MAX_PER_RUN. */
async function promoteBest(deps: WireDeps, now: Date): Promise<{ wire_item_id: number; article_id: number }[]> {
  const settings = provenanceSettings(deps.config);
  const promoted: { wire_item_id: number; article_id: number }[] = [];
  const max = settings.wirePromoteMaxPerRun;
  if (max <= 0) return promoted;
  const candidates = await promotionCandidates(deps.db, now, settings.wirePromoteMinScore, CANDIDATE_HOURS, max * 4);
  const titles: string[] = [];
  for (const c of candidates) {
    if (promoted.length >= max) break;
    if (titles.some((t) => headlineSimilarity(t, c.title) >= HEADLINE_MATCH_THRESHOLD)) continue;
    // Covered since it was scored? Then it is no longer novel: record that and move on.
    const fresh = await novelty(deps.db, c, now, settings.trgmThreshold);
    if (fresh < (c.novelty ?? 1)) {
      const score = promotionScore(fresh, c.weight);
      await setScore(deps.db, c.id, fresh, score);
      if (score < settings.wirePromoteMinScore) continue;
    }
    const r = await deps.db.transaction().execute((trx) => promoteWireItemIn(trx, c.id, { promotedBy: null, now: new Date(), claimStory: true }));
    if (r.outcome !== 'promoted') continue;
    titles.push(c.title);
    promoted.push({ wire_item_id: r.wireItemId, article_id: r.article.id });
  }
  return promoted;
}

/** Scores up to `batch` new wire items, then promotes the best into the editors' queue. */
export async function scoreAndPromoteWireItems(deps: WireDeps, batch: number) {
  const now = new Date();
  const trgm = provenanceSettings(deps.config).trgmThreshold;
  const claimed = await claimUnscored(deps.db, now, batch);
  for (const item of claimed) {
    const n = await novelty(deps.db, item, now, trgm);
    await setScore(deps.db, item.id, n, promotionScore(n, item.weight));
  }
  const promoted = await promoteBest(deps, now);
  deps.log.info({ job: 'wire-promote', scored: claimed.length, promoted: promoted.length }, 'wire items scored');
  return { scored: claimed.length, promoted };
}
