/**
 * wire-fetch: fetch one wire source and ingest its new items.
 *
 * - Conditional GET with the stored ETag / Last-Modified; a 304 changes nothing but the schedule.
 * - The fetch goes through safeFetch (private addresses refused unless OUTBOUND_ALLOW_PRIVATE),
 *   with WIRE_FETCH_TIMEOUT_MS and WIRE_FETCH_MAX_BYTES.
 * - RSS 2.0 / RSS 1.0 / Atom / JSON Feed (src/wire/rules/feed-parse.ts); items are keyed by normalised
 *   URL, so a re-run or a concurrent run of the same or another source never stores an item twice.
 * - Each item created by this run gets a `news.tsunami` event, recorded in the transaction that stores it. Its `id`
 *   is the wire item id (their own id space, not an article id), `status` is `ingested`,
 *   `origin` is `tsunami`, `date_posted` our ingest time.
 * - Failures (network, timeout, HTTP error, malformed feed) are logged and recorded on the source,
 *   whose next fetch backs off exponentially (poll interval x 2^failures, capped at
 *   WIRE_BACKOFF_MAX_S). Transient failures (network, timeout, 5xx, 429) are also retried by the
 *   queue with backoff; malformed feeds and other 4xx wait for the next scheduled fetch. One
 *   source's failure never affects another source: each has its own job.
 */
import { z } from 'zod';
import { provenanceSettings } from '../src/provenance/index.js';
import { normalizeUrl } from '../src/platform/url/normalize.js';
import { FeedParseError, parseFeed } from '../src/wire/index.js';
import { safeFetch, SafeFetchError } from '../src/platform/safe-fetch.js';
import { findSource, ingestItems, recordFetchFailure, recordFetchNotModified, recordFetchSuccess, type IncomingItem } from '../src/wire/index.js';
import { defineJob, PermanentJobError } from './define.js';

const payload = z.object({
  source_id: z.number().int().positive(),
  /** The source's next_fetch_at (ms) when the clock's wire-fetch-due queued it: one job per source and due time. */
  due_at: z.number().int().nonnegative().optional(),
});

const FEED_TYPES = ['application/rss+xml', 'application/atom+xml', 'application/rdf+xml', 'application/xml', 'text/xml', 'application/feed+json', 'application/json', 'text/*'];

/** Seconds until the next fetch after `failures` consecutive failures. */
function backoffSeconds(pollIntervalS: number, failures: number, maxS: number): number {
  return Math.min(pollIntervalS * 2 ** Math.min(failures, 20), maxS);
}

/** Feed items -> rows to store: links normalised, items without a normalisable link dropped, first of each URL kept. */
function toIncoming(items: { url: string; title: string; summary: string | null; guid: string | null; publishedAt: Date | null }[], max: number): IncomingItem[] {
  const seen = new Set<string>();
  const out: IncomingItem[] = [];
  for (const it of items) {
    if (out.length >= max) break;
    const n = normalizeUrl(it.url);
    if (!n || seen.has(n)) continue;
    seen.add(n);
    out.push({ normalizedUrl: n, url: it.url, title: it.title, summary: it.summary, guid: it.guid, publishedAt: it.publishedAt });
  }
  return out;
}

export const job = defineJob({
  name: 'wire-fetch',
  payload,
  options: { attempts: 3, backoffMs: 1000, concurrency: 8, jobId: (p) => (p.due_at !== undefined ? `wire-fetch-${p.source_id}-${p.due_at}` : undefined) },
  async run(p, deps) {
    const settings = provenanceSettings(deps.config);
    const source = await findSource(deps.db, p.source_id);
    if (!source || !source.enabled) return { source_id: p.source_id, skipped: true as const };
    const now = new Date();
    const nextFetchAt = new Date(now.getTime() + source.poll_interval_s * 1000);
    const log = deps.log.child({ job: 'wire-fetch', source_id: source.id, source: source.name });

    const fail = async (status: number | null, error: string, retry: boolean): Promise<never> => {
      const failures = await recordFetchFailure(deps.db, source.id, {
        now,
        status,
        error,
        backoffS: (n) => backoffSeconds(source.poll_interval_s, n, settings.wireBackoffMaxS),
      });
      log.warn({ status, error, failures, retry }, 'wire source fetch failed');
      throw retry ? new Error(`wire source ${source.id}: ${error}`) : new PermanentJobError(`wire source ${source.id}: ${error}`);
    };

    const headers: Record<string, string> = { accept: 'application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, */*;q=0.5' };
    if (source.etag) headers['if-none-match'] = source.etag;
    if (source.last_modified) headers['if-modified-since'] = source.last_modified;

    let res;
    try {
      res = await safeFetch(source.url, {
        headers,
        timeoutMs: settings.wireFetchTimeoutMs,
        maxBytes: settings.wireFetchMaxBytes,
        allowPrivate: deps.config.OUTBOUND_ALLOW_PRIVATE,
        accept: FEED_TYPES,
      });
    } catch (err) {
      if (err instanceof SafeFetchError) {
        const transient = err.code === 'timeout' || err.code === 'network' || err.code === 'dns_failed';
        return fail(null, `${err.code}: ${err.message}`, transient);
      }
      throw err;
    }

    if (res.status === 304) {
      await recordFetchNotModified(deps.db, source.id, now, nextFetchAt);
      return { source_id: source.id, status: 304, items: 0, created: 0 };
    }
    if (res.status < 200 || res.status >= 300) {
      return fail(res.status, `HTTP ${res.status}`, res.status >= 500 || res.status === 429 || res.status === 408);
    }

    let feed;
    try {
      feed = parseFeed(res.text(), { baseUrl: res.url, contentType: res.headers['content-type'] });
    } catch (err) {
      if (err instanceof FeedParseError) return fail(res.status, `parse: ${err.message}`, false);
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
      nextFetchAt,
    });
    log.info({ format: feed.format, items: feed.items.length, skipped: feed.skipped, created: created.length, receipts }, 'wire source fetched');
    return { source_id: source.id, status: res.status, format: feed.format, items: incoming.length, skipped: feed.skipped, created: created.length, receipts };
  },
});
