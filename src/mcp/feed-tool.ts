/**
 * The feed tool. GET /api/v1/news/ keeps its page logic (the shared page cache, the match lists, the
 * personal overlay) inside the feed routes, so this tool is still served by that route: the REST
 * request is dispatched in-process into this app (light-my-request) with the MCP request's
 * Authorization header and client address, and its response body is the result. The daily quota
 * counts it as that REST request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import inject from 'light-my-request';
import type { Context } from 'koa';
import { API_PREFIX } from '../platform/http/openapi.js';
import { queryStringOf, type ToolSchemas } from './schemas.js';
import { jsonResult } from './tool-call.js';

export type Dispatch = (req: IncomingMessage, res: ServerResponse) => void;

/** Headers of the MCP HTTP request that the feed request carries. */
const FORWARDED = ['authorization', 'x-forwarded-for', 'user-agent', 'x-request-id'];

export function registerFeedTool(server: McpServer, ctx: Context, dispatch: () => Dispatch, s: ToolSchemas): void {
  const headers: Record<string, string> = { 'x-mcp-tool': '1' };
  for (const h of FORWARDED) {
    const v = ctx.get(h);
    if (v) headers[h] = v;
  }
  const remoteAddress = ctx.req.socket.remoteAddress ?? '127.0.0.1';
  server.registerTool(
    'feed',
    {
      title: 'Article feed',
      description:
        'The curated article feed (GET /api/v1/news/): status, sort_type (hot, new, top), page, per_page or limit, token_address. Integers are given as decimal strings, exactly as in the REST query.',
      inputSchema: s.feedQuery,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const qs = queryStringOf(args);
      const res = await inject(dispatch() as never, { method: 'GET', url: `${API_PREFIX}/news/${qs ? `?${qs}` : ''}`, remoteAddress, headers });
      return jsonResult(res.payload || 'null', res.statusCode >= 400);
    },
  );
}
