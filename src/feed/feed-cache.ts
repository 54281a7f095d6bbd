/**
 * A short-lived cache for the feed, shared by every web process through Redis, with a copy of hot
 * entries in each process:
 *  - the rendered page of anonymous `status=approved` requests (it is the same for every anonymous
 *    reader; signed-in callers always get a fresh page), and
 *  - the total `count` of a filter (status + token), for everyone: counting 100,000 approved rows
 *    costs far more than picking a page from an index.
 * Entries live FEED_CACHE_TTL_MS. Writes that change what the feed shows (editorial transitions and
 * edits, new yaps, hot-score recomputes) bump a generation counter, which retires every entry at
 * once; votes and clicks do not, so anonymous readers may see counters up to FEED_CACHE_TTL_MS old.
 * Other writers of approved articles can call invalidateFeedCache(); otherwise the TTL bounds the
 * staleness.
 *
 * The process-local copy: an entry read from (or written to) Redis is kept in memory until its
 * Redis expiry, and served without a Redis round trip while this process has confirmed the current
 * generation within the last FEED_GEN_CHECK_MS. An invalidation made in this process retires the
 * local copies at once; one made by another process (a worker's hot-score run, another web
 * process's edit) is seen within FEED_GEN_CHECK_MS. At most LOCAL_MAX_ENTRIES entries and
 * LOCAL_MAX_BYTES of pages are kept (the oldest go first), so random query strings cannot grow the heap.
 */
import type { Redis } from '../redis.js';

export const FEED_CACHE_TTL_MS = 2000;
/** How long a process trusts the generation it last read from Redis before serving local copies again. */
export const FEED_GEN_CHECK_MS = 25;
const LOCAL_MAX_ENTRIES = 500;
export const LOCAL_MAX_BYTES = 8 * 1024 * 1024;

const genKey = (prefix: string) => `${prefix}:feed:gen`;

/** The FeedCache instances of this process, by prefix: invalidations reach their local copies at once. */
const instances = new Map<string, Set<WeakRef<FeedCache>>>();

function forgetLocalCopies(prefix: string): void {
  const set = instances.get(prefix);
  for (const ref of set ?? []) {
    const c = ref.deref();
    if (c) c.forgetLocal();
    else set!.delete(ref);
  }
}

export async function invalidateFeedCache(redis: Redis, prefix: string): Promise<void> {
  forgetLocalCopies(prefix);
  await redis.incr(genKey(prefix));
  // Reads answered while the INCR was in flight may have brought back the old generation: forget again.
  forgetLocalCopies(prefix);
}

interface LocalEntry {
  gen: string;
  value: Buffer;
  expiresAt: number;
}

export class FeedCache {
  private readonly inflight = new Map<string, Promise<Buffer>>();
  private readonly local = new Map<string, LocalEntry>();
  private localBytes = 0;
  /** The generation last read from Redis, and when that read was issued (ms since epoch). */
  private gen = '';
  private genCheckedAt = 0;
  /** Bumped by every invalidation: a Redis read issued before one must not restore trust in its answer. */
  private epoch = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number = FEED_CACHE_TTL_MS,
    private readonly genCheckMs: number = FEED_GEN_CHECK_MS,
  ) {
    if (ttlMs > 0) {
      let set = instances.get(prefix);
      if (!set) instances.set(prefix, (set = new Set()));
      set.add(new WeakRef(this));
    }
  }

  /** Drop every local copy and distrust the known generation (an invalidation happened). */
  forgetLocal(): void {
    this.clearLocal();
    this.genCheckedAt = 0;
    this.epoch++;
  }

  /**
   * The cached value of `key`, or compute() it, store it and return it. Values are bytes (a
   * rendered JSON body goes to the socket without re-encoding). Concurrent misses of one key in
   * this process share one computation. A Redis failure propagates (the API answers 503).
   */
  async getOrCompute(key: string, compute: () => Promise<Buffer>): Promise<Buffer> {
    if (this.ttlMs <= 0) return compute();
    const now = Date.now();
    const near = this.local.get(key);
    if (near) {
      if (near.expiresAt > now && near.gen === this.gen && now - this.genCheckedAt < this.genCheckMs) return near.value;
      if (near.expiresAt <= now || near.gen !== this.gen) this.dropLocal(key);
    }
    // One round trip: the current generation and the entry, which starts with "<generation> <expires-at-ms>\n".
    const entryKey = `${this.prefix}:feed:v:${key}`;
    const checkedAt = Date.now();
    const epoch = this.epoch;
    const [genRaw, entry] = await this.redis.mgetBuffer(genKey(this.prefix), entryKey);
    const gen = genRaw ? genRaw.toString() : '0';
    if (epoch === this.epoch) {
      if (gen !== this.gen) this.clearLocal();
      this.gen = gen;
      this.genCheckedAt = checkedAt;
    }
    if (entry) {
      const nl = entry.indexOf(10);
      const [entryGen, expires] = nl > 0 ? entry.toString('latin1', 0, nl).split(' ') : [];
      if (entryGen === gen) {
        const value = entry.subarray(nl + 1);
        this.keepLocal(key, gen, value, Number(expires));
        return value;
      }
    }
    const flightKey = `${gen}:${key}`;
    let p = this.inflight.get(flightKey);
    if (!p) {
      p = (async () => {
        const value = await compute();
        const expiresAt = Date.now() + this.ttlMs;
        await this.redis.set(entryKey, Buffer.concat([Buffer.from(`${gen} ${expiresAt}\n`), value]), 'PX', this.ttlMs);
        this.keepLocal(key, gen, value, expiresAt);
        return value;
      })().finally(() => this.inflight.delete(flightKey));
      this.inflight.set(flightKey, p);
    }
    return p;
  }

  private keepLocal(key: string, gen: string, value: Buffer, expiresAt: number): void {
    // Only while the generation is still the one this process knows (an invalidation may have run meanwhile).
    if (!Number.isFinite(expiresAt) || gen !== this.gen || this.genCheckedAt === 0) return;
    this.dropLocal(key);
    this.local.set(key, { gen, value, expiresAt });
    this.localBytes += value.length;
    // Oldest first (a Map iterates in insertion order); a single page over the budget is not kept.
    while (this.local.size > LOCAL_MAX_ENTRIES || this.localBytes > LOCAL_MAX_BYTES) this.dropLocal(this.local.keys().next().value!);
  }

  private dropLocal(key: string): void {
    const e = this.local.get(key);
    if (!e) return;
    this.localBytes -= e.value.length;
    this.local.delete(key);
  }

  private clearLocal(): void {
    this.local.clear();
    this.localBytes = 0;
  }
}
