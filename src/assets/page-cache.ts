/**
 * The asset page served from memory (GET /api/v1/assets/{id}/ and the MCP asset tool): per process,
 * per asset, the page's JSON bytes and their ETag, built from the registry this process holds
 * (registry-cache.ts, checked against PostgreSQL at most every REGISTRY_CHECK_MS in the background)
 * and the asset's mindshare read from Redis, kept MINDSHARE_TTL_MS and then re-read in the
 * background while the held one is served. An id the held registry does not know is looked up in
 * PostgreSQL on every request (an exact 404, and an asset added meanwhile is served at once); the
 * mindshare job of this process (refreshMindshare) drops the held mindshare.
 */
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { etagOf } from '../platform/http/conditional.js';
import type { Redis } from '../platform/redis.js';
import { readAssetMindshare } from './mindshare-cache.js';
import { getAsset } from './queries.js';
import { sharedRegistry, type AssetRegistry } from './registry-cache.js';
import type { AssetRecord } from './rules/registry.js';

/** At most a tenth of the asset-mindshare job's period (5 minutes, jobs/schedules.ts). */
const MINDSHARE_TTL_MS = 30_000;
/** Pages held per process; the oldest is dropped beyond it. */
const MAX_PAGES = 2000;

type Mindshare = Awaited<ReturnType<typeof readAssetMindshare>>;
type AssetFields = Pick<AssetRecord, 'id' | 'symbol' | 'name' | 'aliases' | 'ambiguous' | 'deployments'> & { source: string };

export interface AssetPageEntry {
  page: AssetFields & { mindshare: Mindshare };
  body: Buffer;
  etag: string;
}

interface Held extends AssetPageEntry {
  asset: AssetRecord;
  readAt: number;
  rereading?: Promise<void>;
}

interface PageDeps {
  db: Db;
  redis: Redis;
  prefix: string;
}

function entryOf(a: AssetFields, mindshare: Mindshare): AssetPageEntry {
  const page = { id: a.id, symbol: a.symbol, name: a.name, aliases: a.aliases, ambiguous: a.ambiguous, source: a.source, deployments: a.deployments, mindshare };
  const body = Buffer.from(JSON.stringify(page));
  return { page, body, etag: etagOf(body) };
}

class AssetPageCache {
  private held = new Map<string, Held>();
  private generation = 0;

  constructor(
    private readonly registry: AssetRegistry,
    private readonly now: () => number = Date.now,
  ) {}

  /** The asset's page; 404 asset_not_found when the registry does not know the id. */
  async page(deps: PageDeps, id: string): Promise<AssetPageEntry> {
    const asset = (await this.registry.recent(deps.db)).assets.get(id);
    if (!asset) return this.unheld(deps, id);
    const key = `${deps.prefix}\n${id}`;
    const held = this.held.get(key);
    if (held && held.asset === asset) {
      if (this.now() - held.readAt >= MINDSHARE_TTL_MS) held.rereading ??= this.reread(deps, key, held);
      return held;
    }
    const generation = this.generation;
    const entry: Held = { ...entryOf(asset, await readAssetMindshare(deps.redis, deps.prefix, id)), asset, readAt: this.now() };
    if (generation === this.generation) this.hold(key, entry);
    return entry;
  }

  /** Drop every held mindshare (this process has just stored a new one). */
  forgetMindshare(): void {
    this.generation++;
    this.held.clear();
  }

  private hold(key: string, entry: Held): void {
    this.held.delete(key);
    this.held.set(key, entry);
    if (this.held.size > MAX_PAGES) this.held.delete(this.held.keys().next().value!);
  }

  private async reread(deps: PageDeps, key: string, old: Held): Promise<void> {
    const generation = this.generation;
    try {
      const mindshare = await readAssetMindshare(deps.redis, deps.prefix, old.asset.id);
      if (generation === this.generation && this.held.get(key) === old) this.hold(key, { ...entryOf(old.asset, mindshare), asset: old.asset, readAt: this.now() });
    } catch {
      old.rereading = undefined;
    }
  }

  /** An id the held registry does not know: PostgreSQL decides (and the registry reloads when it knows the id). */
  private async unheld(deps: PageDeps, id: string): Promise<AssetPageEntry> {
    const [asset, mindshare] = await Promise.all([getAsset(deps.db, id), readAssetMindshare(deps.redis, deps.prefix, id)]);
    if (!asset) throw new DomainError('asset_not_found', `asset ${id} not found`);
    this.registry.invalidate();
    return entryOf(asset, mindshare);
  }
}

/** The asset pages this process serves. */
export const assetPages = new AssetPageCache(sharedRegistry);
