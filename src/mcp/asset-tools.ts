/**
 * The asset tools: `assets` (GET /api/v1/assets/?q=), `asset` (GET /api/v1/assets/{id}/: the asset,
 * its deployments and mindshare) and `asset_news` (GET /api/v1/news/ filtered by asset), calling the
 * assets and feed features directly with the REST routes' schemas, quota and errors.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { assetPage, assetSearch } from '../assets/index.js';
import { feedPage } from './feed-tool.js';
import type { ToolSchemas } from './schemas.js';
import { jsonResult, type ToolCall } from './tool-call.js';
import type { ToolEnv } from './tool-env.js';
import { readToolRegistrar } from './read-tool.js';

export function registerAssetTools(server: McpServer, env: ToolEnv, call: ToolCall, s: ToolSchemas): void {
  const readTool = readToolRegistrar(server, env, call);
  const { deps } = env;
  readTool(
    'assets',
    {
      title: 'Search the asset registry',
      description: 'Crypto assets by id, symbol, name or alias (GET /api/v1/assets/?q=): exact id or symbol first; limit up to 50. The ids are what asset and asset_news take.',
      inputSchema: s.assetSearchQuery,
    },
    async (args) => {
      await call.admit('searchAssets');
      const { q, limit } = args as unknown as { q: string; limit: number };
      return jsonResult(await assetSearch(deps, q, limit));
    },
  );

  readTool(
    'asset',
    {
      title: 'One asset with its mindshare',
      description:
        'One asset (GET /api/v1/assets/{id}/): symbol, name, aliases, CAIP-19 deployments, and its mindshare (share of stories, articles and engagement over 24h, 7d and 30d, with top stories); an unknown id is asset_not_found.',
      inputSchema: s.assetParams,
    },
    async (args) => {
      await call.admit('getAsset');
      return jsonResult(await assetPage(deps, (args as unknown as { id: string }).id));
    },
  );

  readTool(
    'asset_news',
    {
      title: 'News about assets',
      description:
        'The article feed (GET /api/v1/news/) of articles tagged with any of `asset` (asset ids, comma-separated; the assets tool finds them), with the feed tool’s other parameters. An id the registry does not know is unknown_asset.',
      inputSchema: s.assetNewsQuery,
    },
    (args) => feedPage(env, call, args),
  );
}
