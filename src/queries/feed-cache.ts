/**
 * A short-lived Redis cache for the feed, shared by every web process:
 *  - the rendered page of anonymous `status=approved` requests (it is the same for every anonymous
 *    reader; signed-in callers always get a fresh page), and
 *  - the total `count` of a filter (status + token), for everyone: counting 100,000 approved rows
 *    costs far more than picking a page from an index.
 * Entries live FEED_CACHE_TTL_MS. Writes that change what the feed shows (editorial transitions and
 * edits, new yaps, hot-score recomputes) bump a generation counter, which retires every entry at
 * once; votes and clicks do not, so anonymous readers may see counters up to FEED_CACHE_TTL_MS old.
 * Other writers of approved articles can call invalidateFeedCache(); otherwise the TTL bounds the
 * staleness.
 */
import type { Redis } from '../redis.js';

export const FEED_CACHE_TTL_MS = 2000;

const genKey = (prefix: string) => `${prefix}:feed:gen`;

export async function invalidateFeedCache(redis: Redis, prefix: string): Promise<void> {
  await redis.incr(genKey(prefix));
}

export class FeedCache {
  private readonly inflight = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number = FEED_CACHE_TTL_MS,
  ) {}

  /**
   * The cached value of `key`, or compute() it, store it and return it. Values are bytes (a
   * rendered JSON body goes to the socket without re-encoding). Concurrent misses of one key in
   * this process share one computation. A Redis failure propagates (the API answers 503).
   */
  async getOrCompute(key: string, compute: () => Promise<Buffer>): Promise<Buffer> {
    if (this.ttlMs <= 0) return compute();
    // One round trip: the current generation and the entry, which starts with "<generation>\n".
    const entryKey = `${this.prefix}:feed:v:${key}`;
    const [genRaw, entry] = await this.redis.mgetBuffer(genKey(this.prefix), entryKey);
    const gen = genRaw ? genRaw.toString() : '0';
    if (entry) {
      const nl = entry.indexOf(10);
      if (nl > 0 && entry.toString('latin1', 0, nl) === gen) return entry.subarray(nl + 1);
    }
    const flightKey = `${gen}:${key}`;
    let p = this.inflight.get(flightKey);
    if (!p) {
      p = (async () => {
        const value = await compute();
        await this.redis.set(entryKey, Buffer.concat([Buffer.from(`${gen}\n`), value]), 'PX', this.ttlMs);
        return value;
      })().finally(() => this.inflight.delete(flightKey));
      this.inflight.set(flightKey, p);
    }
    return p;
  }
}
