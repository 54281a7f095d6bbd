/**
 * The stories tools: `stories` (GET /api/v1/stories/) and `story` (GET /api/v1/stories/{id}/),
 * calling the stories feature's reads directly, with the REST routes' schemas, quota and errors.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { pageLinks } from '../articles/index.js';
import { DomainError } from '../platform/errors/index.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import { readStory, readStoryPage, storyListFilter, type StoryListQuery } from '../stories/index.js';
import { queryStringOf, type ToolSchemas } from './schemas.js';
import { jsonResult, type ToolCall } from './tool-call.js';
import type { ToolEnv } from './tool-env.js';
import { readToolRegistrar } from './read-tool.js';

export function registerStoryTools(server: McpServer, env: ToolEnv, call: ToolCall, s: ToolSchemas): void {
  const readTool = readToolRegistrar(server, env, call);
  const { deps } = env;
  readTool(
    'stories',
    {
      title: 'Stories',
      description:
        'Articles and wire items grouped by the event they report (GET /api/v1/stories/), most recently active first: page, per_page, since, until, tag, token_symbol, min_sources. Integers are given as decimal strings, exactly as in the REST query.',
      inputSchema: s.storiesQuery,
    },
    async (args) => {
      await call.admit('listStories');
      const query = args as unknown as StoryListQuery;
      const page = await readStoryPage(deps.db, storyListFilter(query));
      const request = { path: `${API_PREFIX}/stories/`, querystring: queryStringOf(args) };
      return jsonResult({ count: page.count, ...pageLinks(request, deps.config.PUBLIC_BASE_URL, query.page, query.per_page, page.count), results: page.results });
    },
  );

  readTool(
    'story',
    {
      title: 'One story with its members',
      description: 'One story and its members in time order (GET /api/v1/stories/{id}/); an unknown id is story_not_found.',
      inputSchema: s.storyParams,
    },
    async (args) => {
      await call.admit('getStory');
      const { id } = args as unknown as { id: number };
      const story = await readStory(deps.db, id);
      if (!story) throw new DomainError('story_not_found', `no story with id ${id}`);
      return jsonResult(story);
    },
  );
}
