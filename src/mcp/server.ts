/**
 * The Model Context Protocol server at /mcp (Streamable HTTP, stateless: one McpServer and
 * transport per HTTP request, JSON responses), built with the official @modelcontextprotocol/sdk.
 *
 * Every tool is a front for REST operations: its input schema IS the route's zod schema (looked up
 * by operationId, so the two cannot drift), and it calls the same service and read functions as
 * the REST handlers. What REST applies to a request applies to each operation a tool performs
 * (tool-call.ts): the caller from the MCP request's Authorization header, the daily quota, the
 * per-IP route limit and the auth level, each operation counted like one REST request (the /mcp
 * request itself is not counted). Results: structuredContent is the REST response body, isError
 * where REST answers >= 400. intel_report is paid over the x402 MCP transport (report-tool.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Context, Middleware } from 'koa';
import type { AppDeps } from '../platform/deps.js';
import type { RouteDef } from '../platform/http/route.js';
import { SERVICE_VERSION } from '../platform/version.js';
import { registerAssetTools } from './asset-tools.js';
import { registerCheckTools } from './check-tools.js';
import { registerFeedTool } from './feed-tool.js';
import { MCP_PATH } from './offer.js';
import { registerReadTools } from './read-tools.js';
import { registerReportTool } from './report-tool.js';
import { toolSchemas } from './schemas.js';
import { registerSubmitTool } from './submit-tool.js';
import { registerStoryTools } from './story-tools.js';
import { toolCallOf } from './tool-call.js';
import { toolEnv } from './tool-env.js';

/** serverInfo of the MCP initialize answer: its version is the service version (src/platform/version.ts). */
export const MCP_SERVER_INFO = { name: 'squid-news', version: SERVICE_VERSION };

export function mcpEndpoint(deps: AppDeps, routes: RouteDef[]): Middleware {
  let serverFor: ((ctx: Context) => McpServer) | undefined;
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    if (ctx.method !== 'POST') {
      // Stateless: no session to stream server-initiated messages on (GET) or to end (DELETE).
      ctx.status = 405;
      ctx.set('Allow', 'POST');
      ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages' }, id: null };
      return;
    }
    serverFor ??= toolsFor(deps, routes);
    const server = serverFor(ctx);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
  };
}

/** The tools of one MCP HTTP request, acting for its caller. */
function toolsFor(deps: AppDeps, routes: RouteDef[]): (ctx: Context) => McpServer {
  const schemas = toolSchemas(routes);
  const env = toolEnv(deps, routes);
  return (ctx) => {
    const call = toolCallOf(env.guards, ctx);
    const server = new McpServer(MCP_SERVER_INFO, { instructions: 'Squid News: crypto/DeFi news feed, provenance checks and market intelligence. See /llms.txt.' });
    registerFeedTool(server, env, call, schemas);
    registerReadTools(server, env, call, schemas);
    registerCheckTools(server, env, call, schemas);
    registerReportTool(server, env, call, schemas);
    registerSubmitTool(server, env, call, schemas);
    registerStoryTools(server, env, call, schemas);
    registerAssetTools(server, env, call, schemas);
    return server;
  };
}
