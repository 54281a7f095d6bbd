/**
 * The feed tool: the page GET /api/v1/news/ answers, from the feed use case (src/feed/service.ts)
 * on the state of the app's own listArticles route, so REST and MCP share one feed cache. The
 * query string the page links and the cache key are made of is the REST request's equivalent of
 * the tool's (parsed) arguments.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { articlePageBody, type ListQuery } from '../feed/index.js';
import { queryStringOf, type ToolSchemas } from './schemas.js';
import { jsonResult, type ToolCall } from './tool-call.js';
import type { ToolEnv } from './tool-env.js';
import { readToolRegistrar } from './read-tool.js';

export function registerFeedTool(server: McpServer, env: ToolEnv, call: ToolCall, s: ToolSchemas): void {
  const readTool = readToolRegistrar(server, env, call);
  readTool(
    'feed',
    {
      title: 'Article feed',
      description:
        'The curated article feed (GET /api/v1/news/): status, sort_type (hot, new, top), page, per_page or limit, token_address, collapse=story (one item per story, with story_size and story_sources). Integers are given as decimal strings, exactly as in the REST query.',
      inputSchema: s.feedQuery,
    },
    (args) => feedPage(env, call, args),
  );
}

/** The page GET /api/v1/news/ answers for these (parsed) arguments, admitted as that route. */
export async function feedPage(env: ToolEnv, call: ToolCall, args: Record<string, unknown>) {
  const state = await call.admit('listArticles');
  return jsonResult(await articlePageBody(env.guards.routeOf('listArticles'), { state }, queryStringOf(args), args as unknown as ListQuery));
}
