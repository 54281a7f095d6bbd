/**
 * Media in PostgreSQL (table `media`): every web process reads the same rows, so a picture uploaded
 * through one process is served by all, and no restart or deploy loses it.
 *
 * Content-addressed: a picture's name is the hex sha256 of its stored bytes plus the extension of
 * its type (`<64 hex>.jpg|png|gif`), so a URL always means the same bytes (immutable, cacheable
 * forever, strong ETag = the hash) and identical pictures are stored once.
 *
 * Writers and the clean-up of an unreferenced row take a transaction-scoped advisory lock per hash
 * (in hash order, so two swaps never deadlock): a picture being referenced by one profile can never
 * be deleted as "unreferenced" by another profile's change at the same moment.
 *
 * Reads go through a small per-process cache (MEDIA_CACHE_BYTES, entries live MEDIA_CACHE_TTL_MS):
 * the bytes behind a name never change, so the only staleness is a deleted picture being served by
 * a process for at most the TTL.
 */
import type { Db } from '../platform/db.js';
import { mediaBytes, mediaExists, mediaOfAlias } from './queries.js';
import { LEGACY_NAME_PATTERN, mediaName, parseMediaName } from './rules/media-name.js';

export { LEGACY_NAME_PATTERN, mediaName, parseMediaName, type NewMedia } from './rules/media-name.js';

interface MediaFile {
  bytes: Buffer;
  type: string;
  etag: string;
}

interface CacheEntry extends MediaFile {
  at: number;
}

/** Reads media rows for serving, through a bounded in-process cache. */
export class MediaReader {
  private readonly cache = new Map<string, CacheEntry>();
  private cached = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: { cacheBytes: number; ttlMs: number },
  ) {}

  private hit(hex: string): CacheEntry | null {
    const e = this.cache.get(hex);
    if (!e) return null;
    if (Date.now() - e.at > this.opts.ttlMs) {
      this.evict(hex, e);
      return null;
    }
    // Most recently used last.
    this.cache.delete(hex);
    this.cache.set(hex, e);
    return e;
  }

  private evict(hex: string, e: CacheEntry) {
    this.cache.delete(hex);
    this.cached -= e.bytes.length;
  }

  private remember(hex: string, f: MediaFile) {
    if (f.bytes.length > this.opts.cacheBytes / 4) return;
    const old = this.cache.get(hex);
    if (old) this.evict(hex, old);
    this.cache.set(hex, { ...f, at: Date.now() });
    this.cached += f.bytes.length;
    for (const [k, e] of this.cache) {
      if (this.cached <= this.opts.cacheBytes) break;
      this.evict(k, e);
    }
  }

  /** The picture named `name` (content-addressed), or null. The type in the name must match the stored type. */
  async get(name: string): Promise<MediaFile | null> {
    const p = parseMediaName(name);
    if (!p) return null;
    const hex = p.sha256.toString('hex');
    const c = this.hit(hex);
    if (c) return c.type === p.type ? c : null;
    const r = await mediaBytes(this.db, p.sha256);
    if (!r) return null;
    const f = { bytes: r.bytes, type: r.content_type, etag: `"${hex}"` };
    this.remember(hex, f);
    return f.type === p.type ? f : null;
  }

  /** Whether `name` is stored (for a conditional request: no bytes are read from the database). */
  async exists(name: string): Promise<boolean> {
    const p = parseMediaName(name);
    if (!p) return false;
    const c = this.hit(p.sha256.toString('hex'));
    if (c) return c.type === p.type;
    return mediaExists(this.db, p.sha256, p.type);
  }

  /** The current name of a picture of the disk era, or null. */
  async legacy(name: string): Promise<string | null> {
    if (!LEGACY_NAME_PATTERN.test(name)) return null;
    const row = await mediaOfAlias(this.db, name);
    return row ? mediaName(row.sha256, row.content_type) : null;
  }
}
