/**
 * Computing mindshare (the asset-mindshare job): for each window (24 h, 7 d, 30 d before now) the
 * per-asset counts and top stories from PostgreSQL, turned into shares (src/assets/rules/mindshare.ts)
 * and stored whole in Redis (src/assets/mindshare-cache.ts), where the asset page and the intel
 * report read them (the asset pages this process holds drop their mindshare at once; other
 * processes re-read it within MINDSHARE_TTL_MS, page-cache.ts).
 */
import type { Db } from '../platform/db.js';
import type { Redis } from '../platform/redis.js';
import { mindshareCounts, mindshareTopStories } from './mindshare-queries.js';
import { writeMindshare, type MindshareSnapshot } from './mindshare-cache.js';
import { assetPages } from './page-cache.js';
import { MINDSHARE_TOP_STORIES, MINDSHARE_WINDOWS, windowShares, type AssetWindow, type MindshareWindowKey } from './rules/mindshare.js';

async function computeMindshare(db: Db, now: Date = new Date()): Promise<MindshareSnapshot> {
  const snap: MindshareSnapshot = { computed_at: now.toISOString(), windows: {} as MindshareSnapshot['windows'], assets: new Map() };
  for (const { key, hours } of MINDSHARE_WINDOWS) {
    const w = { from: new Date(now.getTime() - hours * 3600_000), to: now };
    const [counts, stories] = await Promise.all([mindshareCounts(db, w), mindshareTopStories(db, w, MINDSHARE_TOP_STORIES)]);
    const result = windowShares({ from: w.from.toISOString(), to: w.to.toISOString() }, counts, stories);
    snap.windows[key] = { from: result.from, to: result.to, totals: result.totals, leaders: result.leaders };
    for (const [id, entry] of result.byAsset) {
      const own: Partial<Record<MindshareWindowKey, AssetWindow>> = snap.assets.get(id) ?? {};
      own[key] = entry;
      snap.assets.set(id, own);
    }
  }
  return snap;
}

/** Compute every window's mindshare now and replace the stored one; returns what was stored, in figures. */
export async function refreshMindshare(db: Db, redis: Redis, prefix: string, now: Date = new Date()) {
  const snap = await computeMindshare(db, now);
  await writeMindshare(redis, prefix, snap);
  assetPages.forgetMindshare();
  return {
    computed_at: snap.computed_at,
    assets: snap.assets.size,
    totals: Object.fromEntries(Object.entries(snap.windows).map(([k, w]) => [k, w.totals])),
  };
}
