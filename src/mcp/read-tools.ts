/** The free read tools: article (with its top yaps) and search. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import { articleRecord, yapPage } from '../articles/index.js';
import { searchArticles } from '../provenance/index.js';
import { queryStringOf, type ToolSchemas } from './schemas.js';
import { jsonResult, type ToolCall } from './tool-call.js';
import type { ToolEnv } from './tool-env.js';
import { readToolRegistrar } from './read-tool.js';

export function registerReadTools(server: McpServer, env: ToolEnv, call: ToolCall, s: ToolSchemas): void {
  const readTool = readToolRegistrar(server, env, call);
  const { deps } = env;
  readTool(
    'article',
    {
      title: 'Article with its top yaps',
      description:
        'One article (GET /api/v1/news/{id}/) and its yaps (GET /api/v1/news/{id}/list_yaps, sort top by default; page, per_page). Result: {article, yaps: {count, results}}.',
      inputSchema: s.articleInput,
    },
    async (args) => {
      const { id, ...q } = args as { id: number; sort: 'top' | 'new' | 'old'; page: number; per_page: number };
      const article = await articleRecord(deps, { state: await call.admit('getArticle') }, id);
      const request = { path: `${API_PREFIX}/news/${id}/list_yaps`, querystring: queryStringOf(q) };
      const yaps = await yapPage(deps, { state: await call.admit('listYaps') }, request, id, q);
      return jsonResult({ article, yaps: { count: yaps.count, results: yaps.results } });
    },
  );

  readTool(
    'search',
    {
      title: 'Search curated articles',
      description: 'Full-text and fuzzy search of curated articles of the last `days` days (GET /api/v1/provenance/search; 30 per minute per IP).',
      inputSchema: s.searchQuery,
    },
    async (args) => {
      await call.admit('provenanceSearch');
      return jsonResult(await searchArticles(deps, args as { q: string; days: number; limit: number }));
    },
  );
}
