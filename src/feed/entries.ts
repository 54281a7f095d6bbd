/**
 * The feed's cached entries ("<etag> <last-modified ms> <comma-separated item ids>\n<body>"), the
 * personal overlay (the shared page with the caller's my_vote on each item) and the cache keys the
 * memory lane may answer from.
 */
import type { AppDeps } from '../platform/deps.js';
import { etagOf } from '../platform/http/conditional.js';
import { feedLastModifiedKey } from '../platform/redis-keys.js';
import { singleFlight } from '../platform/single-flight.js';
import { myVotesOn, pageLinks, type PageRequest } from '../articles/index.js';
import type { FeedCache } from './cache.js';
import type { ListedPage } from './match-lists.js';

/**
 * How long the Last-Modified of a query string's bytes is remembered (the time they were first
 * served). Long enough to span pollers' intervals; short enough that random query strings cannot
 * pile up keys in Redis (one ~150-byte key per distinct query string for 10 minutes).
 */
const LAST_MODIFIED_TTL_S = 600;
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

export interface Entry {
  etag: string;
  lastModified: Date;
  ids: number[];
  body: Buffer;
}

/** A page as one caller gets it: the shared bytes, or the caller's overlay of them. */
export interface PageBytes {
  etag: string;
  body: Buffer;
}

/** Entries already decoded, by the cached bytes (the feed cache hands out the same Buffer while it keeps a page). */
const decoded = new WeakMap<Buffer, Entry>();

export function decodeEntry(raw: Buffer): Entry {
  const known = decoded.get(raw);
  if (known) return known;
  const nl = raw.indexOf(10);
  const [etag, lm, ids] = raw.toString('latin1', 0, nl).split(' ');
  const entry = { etag, lastModified: new Date(Number(lm)), ids: ids ? ids.split(',').map(Number) : [], body: raw.subarray(nl + 1) };
  decoded.set(raw, entry);
  return entry;
}

/** A page picked from its filter's match list (src/feed/match-lists.ts): the bytes JSON.stringify({ count, next, previous, results }) would write. */
export function listedBody(request: PageRequest, baseUrl: string, page: number, perPage: number, listed: ListedPage): Buffer {
  const links = pageLinks(request, baseUrl, page, perPage, listed.count);
  const parts: Buffer[] = [Buffer.from(`{"count":${listed.count},"next":${JSON.stringify(links.next)},"previous":${JSON.stringify(links.previous)},"results":[`)];
  listed.items.forEach((item, i) => parts.push(...(i ? [COMMA, item] : [item])));
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

export const lmKeyOf = (deps: AppDeps, key: string) => feedLastModifiedKey(deps.config.QUEUE_PREFIX, key);

/**
 * The entry for freshly rendered bytes. Last-Modified is the time these exact bytes were first
 * rendered (remembered in Redis under the cache key; `prev` is that record, read in the cache's
 * own round trip): re-rendering unchanged content keeps it.
 */
export function encodeEntry(deps: AppDeps, key: string, prev: Buffer | null, body: Buffer, ids: number[]): Buffer {
  const etag = etagOf(body);
  const p = prev?.toString('latin1');
  let lm = Date.now();
  if (p && p.startsWith(`${etag} `)) lm = Number(p.slice(etag.length + 1));
  else {
    // Best effort, not awaited: a lost write only makes the next render's Last-Modified newer.
    deps.redis
      .set(lmKeyOf(deps, key), `${etag} ${lm}`, 'EX', LAST_MODIFIED_TTL_S)
      .catch((err: unknown) => deps.log.warn({ err: (err as Error).message }, 'feed: Last-Modified not stored'));
  }
  return Buffer.concat([Buffer.from(`${etag} ${lm} ${ids.join(',')}\n`, 'latin1'), body]);
}

// ---------------------------------------------------------------------------------------------
// The personal overlay: the shared page with the caller's my_vote on each item.

const OVERLAY_MAX_ENTRIES = 2000;
/** A caller's overlay of one page version. */
const keyOf = (userId: number, page: Entry) => `${userId}|${page.etag}`;
const OVERLAY_MAX_BYTES = 16 * 1024 * 1024;

export class PersonalPages {
  private readonly kept = new Map<string, PageBytes>();
  private readonly inflight = new Map<string, Promise<PageBytes>>();
  private bytes = 0;

  constructor(private readonly deps: AppDeps) {}

  /** The caller's page as kept in this process (no lookup); undefined when get() would build it. */
  keptFor(userId: number, page: Entry): PageBytes | undefined {
    return this.kept.get(keyOf(userId, page));
  }

  async get(userId: number, page: Entry): Promise<PageBytes> {
    const key = keyOf(userId, page);
    const hit = this.kept.get(key);
    if (hit) return hit;
    return singleFlight(this.inflight, key, async () => {
      const v = await this.build(userId, page);
      this.keep(key, v);
      return v;
    });
  }

  private async build(userId: number, page: Entry): Promise<PageBytes> {
    const votes = await myVotesOn(this.deps.db, userId, page.ids);
    const doc = JSON.parse(page.body.toString('utf8')) as { results: { id: number; my_vote?: number }[] };
    for (const item of doc.results) item.my_vote = votes.get(item.id) ?? 0;
    const body = Buffer.from(JSON.stringify(doc));
    return { etag: etagOf(body), body };
  }

  private keep(key: string, v: PageBytes): void {
    this.kept.set(key, v);
    this.bytes += v.body.length;
    while (this.kept.size > OVERLAY_MAX_ENTRIES || this.bytes > OVERLAY_MAX_BYTES) {
      const oldest = this.kept.keys().next().value!;
      this.bytes -= this.kept.get(oldest)!.body.length;
      this.kept.delete(oldest);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The memory lane (src/platform/http/lane.ts)

/** Cache keys remembered as servable without credentials (bounded: the oldest go first). */
const LANE_KEYS_MAX = 10_000;

/**
 * The cache keys of query strings this process has served without needing credentials (valid, and
 * for GET /news/ status=approved): what the memory lane may answer from the feed cache's local copies.
 */
export class LaneKeys {
  private readonly keys = new Set<string>();

  add(key: string): void {
    if (this.keys.has(key)) return;
    if (this.keys.size >= LANE_KEYS_MAX) this.keys.delete(this.keys.values().next().value!);
    this.keys.add(key);
  }

  /** The local copy of `key`'s page when the lane may serve it. */
  hit(cache: FeedCache, key: string): Entry | undefined {
    const near = this.keys.has(key) ? cache.localHit(key) : undefined;
    return near && decodeEntry(near);
  }
}
