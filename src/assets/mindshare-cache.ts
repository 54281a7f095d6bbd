/**
 * Where mindshare is kept: one Redis hash (assetMindshareKey) with a `_meta` field (computation time,
 * each window's bounds, totals and leading assets) and one field per asset that had anything in a
 * window. The asset-mindshare job replaces the hash whole (written aside, then renamed); the asset
 * page and the intel report read it with one command.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from '../platform/redis.js';
import { assetMindshareKey } from '../platform/redis-keys.js';
import { emptyWindow, MINDSHARE_WINDOWS, type AssetWindow, type Leader, type MindshareWindowKey, type WindowTotals } from './rules/mindshare.js';

const META = '_meta';

interface WindowMeta {
  from: string;
  to: string;
  totals: WindowTotals;
  leaders: Leader[];
}

export interface MindshareSnapshot {
  computed_at: string;
  windows: Record<MindshareWindowKey, WindowMeta>;
  assets: Map<string, Partial<Record<MindshareWindowKey, AssetWindow>>>;
}

/** An asset's mindshare as the asset page shows it. */
interface AssetMindshare {
  computed_at: string;
  windows: Record<MindshareWindowKey, AssetWindow>;
}

/** The leading assets of each window, as the intel report shows them. */
export interface MindshareLeaders {
  computed_at: string;
  windows: Record<MindshareWindowKey, { from: string; to: string; totals: WindowTotals; assets: Leader[] }>;
}

export async function writeMindshare(redis: Redis, prefix: string, snap: MindshareSnapshot): Promise<void> {
  const key = assetMindshareKey(prefix);
  const tmp = `${key}:next:${randomBytes(6).toString('hex')}`;
  const fields: string[] = [META, JSON.stringify({ computed_at: snap.computed_at, windows: snap.windows })];
  for (const [id, windows] of snap.assets) fields.push(id, JSON.stringify(windows));
  await redis
    .multi()
    .del(tmp)
    .hset(tmp, ...fields)
    .rename(tmp, key)
    .exec();
}

type StoredMeta = Pick<MindshareSnapshot, 'computed_at' | 'windows'>;

/** One asset's mindshare (zero in the windows where it had nothing), or null before the first computation. */
export async function readAssetMindshare(redis: Redis, prefix: string, assetId: string): Promise<AssetMindshare | null> {
  const [meta, own] = await redis.hmget(assetMindshareKey(prefix), META, assetId);
  if (!meta) return null;
  const m = JSON.parse(meta) as StoredMeta;
  const mine = own ? (JSON.parse(own) as Partial<Record<MindshareWindowKey, AssetWindow>>) : {};
  const windows = Object.fromEntries(MINDSHARE_WINDOWS.map(({ key }) => [key, mine[key] ?? emptyWindow(m.windows[key])])) as Record<MindshareWindowKey, AssetWindow>;
  return { computed_at: m.computed_at, windows };
}

/** The `top` leading assets of each window, or null before the first computation. */
export async function readMindshareLeaders(redis: Redis, prefix: string, top: number): Promise<MindshareLeaders | null> {
  const meta = await redis.hget(assetMindshareKey(prefix), META);
  if (!meta) return null;
  const m = JSON.parse(meta) as StoredMeta;
  const windows = Object.fromEntries(
    MINDSHARE_WINDOWS.map(({ key }) => {
      const w = m.windows[key];
      return [key, { from: w.from, to: w.to, totals: w.totals, assets: w.leaders.slice(0, top) }];
    }),
  ) as MindshareLeaders['windows'];
  return { computed_at: m.computed_at, windows };
}
