/**
 * The public reads of the assets feature: registry search and an asset's page (the asset, its
 * deployments and its stored mindshare, served from this process's memory: page-cache.ts).
 * GET /assets/ and /assets/{id}/ and the MCP asset tools call them.
 */
import type { AppDeps } from '../platform/deps.js';
import { assetPages, type AssetPageEntry } from './page-cache.js';
import { searchAssets } from './queries.js';

export async function assetSearch(deps: Pick<AppDeps, 'db'>, q: string, limit: number) {
  return { results: await searchAssets(deps.db, q, limit) };
}

/** The asset page with its JSON bytes and ETag; 404 asset_not_found when the registry does not know the id. */
export async function assetPageEntry(deps: Pick<AppDeps, 'db' | 'redis' | 'config'>, id: string): Promise<AssetPageEntry> {
  return assetPages.page({ db: deps.db, redis: deps.redis, prefix: deps.config.QUEUE_PREFIX }, id);
}

/** The asset with its deployments and mindshare; 404 asset_not_found when the registry does not know the id. */
export async function assetPage(deps: Pick<AppDeps, 'db' | 'redis' | 'config'>, id: string) {
  return (await assetPageEntry(deps, id)).page;
}
