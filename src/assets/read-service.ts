/**
 * The public reads of the assets feature: registry search and an asset's page (the asset, its
 * deployments and its stored mindshare). GET /assets/ and /assets/{id}/ and the MCP asset tools
 * call them.
 */
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { readAssetMindshare } from './mindshare-cache.js';
import { getAsset, searchAssets } from './queries.js';

export async function assetSearch(deps: Pick<AppDeps, 'db'>, q: string, limit: number) {
  return { results: await searchAssets(deps.db, q, limit) };
}

/** The asset with its deployments and mindshare; 404 asset_not_found when the registry does not know the id. */
export async function assetPage(deps: Pick<AppDeps, 'db' | 'redis' | 'config'>, id: string) {
  const [asset, mindshare] = await Promise.all([getAsset(deps.db, id), readAssetMindshare(deps.redis, deps.config.QUEUE_PREFIX, id)]);
  if (!asset) throw new DomainError('asset_not_found', `asset ${id} not found`);
  return { ...asset, mindshare };
}
