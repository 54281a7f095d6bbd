/**
 * A short-lived cache for the feed (GET /news/ pages and their `count`s, the syndication feeds),
 * shared by every web process through Redis, with a copy of hot entries in each process. Entries
 * are the same for every caller (src/feed/routes.ts adds what is personal on top) and live
 * FEED_CACHE_TTL_MS. Every event that changes what the feed shows (status, edit, yap, vote,
 * hot-score run) makes the relay bump a generation counter (invalidateFeedCache), which retires
 * every entry at once; only `clicks` may lag by up to FEED_CACHE_TTL_MS.
 *
 * A miss costs one Redis round trip before the computation: the generation, the entry and any
 * side entries the computation wants (a page's `count`, its Last-Modified record) are read in one
 * MGET, and what the computation produces is written back without waiting (a lost write only
 * means the next request computes again).
 *
 * The process-local copy: an entry read from (or written to) Redis is kept in memory until its
 * Redis expiry, and served without a Redis round trip while this process has confirmed the current
 * generation within the last FEED_GEN_CHECK_MS. An invalidation made in this process retires the
 * local copies at once; one made by another process (a worker's hot-score run, another web
 * process's edit) is seen within FEED_GEN_CHECK_MS. At most LOCAL_MAX_ENTRIES entries and
 * LOCAL_MAX_BYTES of pages are kept (the oldest go first), so random query strings cannot grow the heap.
 */
import { systemClock, type Clock } from '../platform/clock.js';
import type { Redis } from '../platform/redis.js';
import { feedEntryKey, feedGenerationKey } from '../platform/redis-keys.js';
import { singleFlight } from '../platform/single-flight.js';

export const FEED_CACHE_TTL_MS = 2000;
/** How long a process trusts the generation it last read from Redis before serving local copies again. */
export const FEED_GEN_CHECK_MS = 25;
const LOCAL_MAX_ENTRIES = 500;
export const LOCAL_MAX_BYTES = 8 * 1024 * 1024;

const genKey = feedGenerationKey;

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

/** What the Redis round trip of a miss read besides the entry itself (see getOrCompute). */
interface Peek {
  gen: string;
  cached: (Buffer | undefined)[];
  raw: (Buffer | null)[];
}

/** Keys read in a miss's Redis round trip besides the entry (see getOrCompute). */
interface SideKeys {
  cached?: string[];
  raw?: string[];
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
  /** When this process first read the generation it knows now (ms since epoch). */
  private genSince = 0;
  /** Bumped by every invalidation: a Redis read issued before one must not restore trust in its answer. */
  private epoch = 0;
  /** A background read of the generation is under way (localHit's confirmation ahead of expiry). */
  private confirming = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number = FEED_CACHE_TTL_MS,
    private readonly genCheckMs: number = FEED_GEN_CHECK_MS,
    private readonly clock: Clock = systemClock,
  ) {
    if (ttlMs > 0) {
      let set = instances.get(prefix);
      if (!set) instances.set(prefix, (set = new Set()));
      set.add(new WeakRef(this));
    }
  }

  /** How long entries live (0: the cache is off). */
  get ttl(): number {
    return this.ttlMs;
  }

  /**
   * The current generation without a Redis round trip, and when this process first read it: only
   * while it was confirmed within the last FEED_GEN_CHECK_MS, the trust its local copies get
   * (undefined otherwise, and when the cache is off). An invalidation in this process withdraws it.
   */
  knownGeneration(): { gen: string; since: number } | undefined {
    if (this.ttlMs <= 0 || this.genCheckedAt === 0 || this.clock.now() - this.genCheckedAt >= this.genCheckMs) return undefined;
    return { gen: this.gen, since: this.genSince };
  }

  /**
   * This process's copy of `key` when it may be served without Redis (see getOrCompute), at no
   * more cost than a Map lookup; undefined otherwise.
   */
  localHit(key: string): Buffer | undefined {
    if (this.ttlMs <= 0) return undefined;
    const near = this.local.get(key);
    if (!near) return undefined;
    const now = this.clock.now();
    const age = now - this.genCheckedAt;
    if (near.expiresAt > now && near.gen === this.gen && age < this.genCheckMs) {
      // Past half its trust: confirm the generation in the background, so that a steady stream of
      // hits is not interrupted by requests that must wait for the check.
      if (age >= this.genCheckMs / 2 && !this.confirming) this.confirmAhead();
      return near.value;
    }
    if (near.expiresAt <= now || near.gen !== this.gen) this.dropLocal(key);
    return undefined;
  }

  private confirmAhead(): void {
    this.confirming = true;
    this.readGeneration()
      .catch(() => undefined)
      .finally(() => (this.confirming = false));
  }

  /** The current generation read from Redis (for when knownGeneration() has none), and when this process first saw it. */
  async readGeneration(): Promise<{ gen: string; since: number }> {
    const checkedAt = this.clock.now();
    const epoch = this.epoch;
    const [raw] = await this.redis.mgetBuffer(genKey(this.prefix));
    const gen = this.learn(raw, checkedAt, epoch);
    // An invalidation during the read: its answer is not trusted, and the bytes it serves are dated now.
    return gen === this.gen ? { gen, since: this.genSince } : { gen, since: checkedAt };
  }

  /** The generation a Redis read issued at `checkedAt` returned; trusted unless an invalidation ran meanwhile. */
  private learn(raw: Buffer | null | undefined, checkedAt: number, epoch: number): string {
    const gen = raw ? raw.toString() : '0';
    if (epoch === this.epoch) {
      if (gen !== this.gen) {
        this.clearLocal();
        this.genSince = checkedAt;
      }
      this.gen = gen;
      this.genCheckedAt = checkedAt;
    }
    return gen;
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
   * this process share one computation. On a miss, compute() gets what the same Redis round trip
   * read for `side`: the cached values of `side.cached` keys (undefined when absent or of an older
   * generation) and the raw Redis values of `side.raw` keys, plus the generation to store side
   * results under (put()). `side` may be a function: it is called only on a local miss. A Redis
   * read failure propagates (the API answers 503).
   */
  async getOrCompute(key: string, compute: (peek: Peek) => Promise<Buffer>, sideKeys: SideKeys | (() => SideKeys) = {}): Promise<Buffer> {
    const near = this.localHit(key);
    if (near) return near;
    // Past the local copies only: a hit does not build the side keys.
    const side = typeof sideKeys === 'function' ? sideKeys() : sideKeys;
    const cachedKeys = side.cached ?? [];
    const rawKeys = side.raw ?? [];
    if (this.ttlMs <= 0) {
      const raw = rawKeys.length ? await this.redis.mgetBuffer(...rawKeys) : [];
      return compute({ gen: '', cached: cachedKeys.map(() => undefined), raw });
    }
    // One round trip: the current generation, the entry (which starts with "<generation> <expires-at-ms>\n") and the side keys.
    const checkedAt = this.clock.now();
    const epoch = this.epoch;
    const got = await this.redis.mgetBuffer(genKey(this.prefix), this.entryKey(key), ...cachedKeys.map((k) => this.entryKey(k)), ...rawKeys);
    const gen = this.learn(got[0], checkedAt, epoch);
    const hit = this.decode(key, gen, got[1]);
    if (hit) return hit;
    return singleFlight(this.inflight, `${gen}:${key}`, async () => {
      const cached = cachedKeys.map((k, i) => {
        const l = this.local.get(k);
        return l && l.gen === gen && l.expiresAt > this.clock.now() ? l.value : this.decode(k, gen, got[2 + i]);
      });
      const raw = got.slice(2 + cachedKeys.length);
      const peek: Peek = { gen, cached, raw };
      const value = await compute(peek);
      this.put(key, gen, value);
      return value;
    });
  }

  /**
   * Store `value` under `key` for the generation `gen` (as read by getOrCompute), without waiting
   * for Redis, for the TTL or until `until` (ms since epoch) when that is sooner.
   */
  put(key: string, gen: string, value: Buffer, until?: number): void {
    if (this.ttlMs <= 0) return;
    const now = this.clock.now();
    const expiresAt = Math.min(now + this.ttlMs, until ?? Infinity);
    if (expiresAt <= now) return;
    this.redis.set(this.entryKey(key), Buffer.concat([Buffer.from(`${gen} ${expiresAt}\n`), value]), 'PX', expiresAt - now).catch(() => undefined);
    this.keepLocal(key, gen, value, expiresAt);
  }

  private entryKey(key: string): string {
    return feedEntryKey(this.prefix, key);
  }

  /** The value of a stored entry when it belongs to generation `gen` (kept locally too); undefined otherwise. */
  private decode(key: string, gen: string, entry: Buffer | null | undefined): Buffer | undefined {
    if (!entry) return undefined;
    const nl = entry.indexOf(10);
    const [entryGen, expires] = nl > 0 ? entry.toString('latin1', 0, nl).split(' ') : [];
    if (entryGen !== gen) return undefined;
    const value = entry.subarray(nl + 1);
    this.keepLocal(key, gen, value, Number(expires));
    return value;
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
