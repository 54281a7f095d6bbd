/**
 * Rendered queue rows by article, reused while the article's updated_at and its provenance state
 * are unchanged, for at most ROW_CACHE_MS (so a submitter's new username shows within that).
 */
import type { Db } from '../platform/db.js';
import type { CachedProvenance } from './provenance-cache.js';
import { queueItemsByIds } from './queue-queries.js';
import { queueRow } from './render.js';

const ROW_CACHE_MS = 60_000;
const ROW_CACHE_MAX = 20_000;
const provStamp = (p: CachedProvenance | undefined) => (p?.state === 'done' ? p.result.meta.checked_at : (p?.state ?? 'missing'));

export class QueueRowCache {
  private readonly rows = new Map<number, { stamp: string; html: string; until: number }>();

  /** The rows of these queue entries, one per entry in order; undefined for an entry decided since it was listed. */
  async render(db: Db, ids: { id: number; updated_at: Date }[], cached: Map<number, CachedProvenance>): Promise<(string | undefined)[]> {
    const now = Date.now();
    const html: string[] = new Array(ids.length);
    const misses: number[] = [];
    const stamps = ids.map((r) => `${r.updated_at.getTime()}|${provStamp(cached.get(r.id))}`);
    ids.forEach((r, i) => {
      const hit = this.rows.get(r.id);
      if (hit && hit.stamp === stamps[i] && hit.until > now) html[i] = hit.html;
      else misses.push(i);
    });
    if (misses.length) {
      const full = new Map(
        (
          await queueItemsByIds(
            db,
            misses.map((i) => ids[i].id),
          )
        ).map((it) => [it.id, it]),
      );
      for (const i of misses) {
        const it = full.get(ids[i].id);
        if (!it) continue; // decided between the two reads
        html[i] = queueRow(it, cached.get(it.id));
        if (this.rows.size >= ROW_CACHE_MAX) this.rows.delete(this.rows.keys().next().value!);
        this.rows.set(it.id, { stamp: stamps[i], html: html[i], until: now + ROW_CACHE_MS });
      }
    }
    return html;
  }
}
