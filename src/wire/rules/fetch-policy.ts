/**
 * What a wire fetch asks for and how it reacts: the accepted feed types, the back-off after
 * failures, which failures the queue retries, and which feed items are stored. Pure.
 */
import { normalizeUrl } from '../../platform/url/normalize.js';
import type { IncomingItem } from '../queries.js';

/** The content types safeFetch accepts for a feed body. */
export const FEED_TYPES = [
  'application/rss+xml',
  'application/atom+xml',
  'application/rdf+xml',
  'application/xml',
  'text/xml',
  'application/feed+json',
  'application/json',
  'text/*',
];

/** The Accept header of a feed request. */
export const FEED_ACCEPT = 'application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, */*;q=0.5';

/** Seconds until the next fetch after `failures` consecutive failures. */
export function backoffSeconds(pollIntervalS: number, failures: number, maxS: number): number {
  return Math.min(pollIntervalS * 2 ** Math.min(failures, 20), maxS);
}

/** An HTTP status worth retrying soon (server trouble, rate limit, request time-out); other 4xx wait for the next scheduled fetch. */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

/** Feed items -> rows to store: links normalised, items without a normalisable link dropped, first of each URL kept. */
export function toIncoming(items: { url: string; title: string; summary: string | null; guid: string | null; publishedAt: Date | null }[], max: number): IncomingItem[] {
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
