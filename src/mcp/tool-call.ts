/**
 * What REST applies to a request, applied to each operation an MCP tool performs: the caller from
 * the MCP request's Authorization header (never its cookie), then the operation's route
 * declarations, read from its RouteDef by operationId, in the order the REST chain applies them:
 * the daily quota (metered routes), the per-IP route limit, the auth level. Each operation counts
 * like one REST request; the /mcp request itself is not counted. A thrown error becomes the tool
 * result the REST error body would be (isError, structuredContent = {"error": {...}}).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'koa';
import type { AppDeps } from '../platform/deps.js';
import { renderError, type RenderedError } from '../platform/errors/index.js';
import { Limits } from '../platform/http/rate-limit.js';
import { isMetered, type RouteDef } from '../platform/http/route.js';
import { authLevelCheck, authorizationAuthenticator, type Principal } from '../identity/index.js';
import { redisHung } from '../platform/redis.js';

/** The checks of the app, built once for every MCP request. */
export interface ToolGuards {
  deps: AppDeps;
  routeOf(operationId: string): RouteDef;
  authenticate(header: string | undefined): Promise<Principal>;
  authLevel: ReturnType<typeof authLevelCheck>;
  limits: Limits;
}

export function toolGuards(deps: AppDeps, routes: RouteDef[]): ToolGuards {
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  return {
    deps,
    routeOf(operationId) {
      const def = byId.get(operationId);
      if (!def) throw new Error(`MCP: no route ${operationId}`);
      return def;
    },
    authenticate: authorizationAuthenticator({ db: deps.db, secret: deps.config.JWT_SECRET, authCacheCheckMs: deps.config.AUTH_CACHE_CHECK_MS }),
    authLevel: authLevelCheck(deps.db),
    limits: new Limits(deps.redis, deps.config.QUEUE_PREFIX, deps.config),
  };
}

/** One MCP HTTP request's view for its tools: who calls, from where, and the REST checks per operation. */
export interface ToolCall {
  /** Apply operation `operationId`'s REST checks (counting it); the authenticated caller. */
  admit(operationId: string): Promise<Principal>;
  /** A thrown error as its REST error body: an isError tool result. */
  failure(err: unknown): { rendered: RenderedError; result: CallToolResult };
}

export function toolCallOf(g: ToolGuards, ctx: Context): ToolCall {
  const header = ctx.get('authorization') || undefined;
  const ip = ctx.ip;
  const scene = { method: ctx.method, path: ctx.path, requestId: ctx.state.requestId as string | undefined };
  const probe = { redisDown: () => g.deps.redis.status !== 'ready' || redisHung(g.deps.redis) };
  return {
    async admit(operationId) {
      const def = g.routeOf(operationId);
      const principal = await g.authenticate(header);
      if (isMetered(def)) {
        const counted = await g.limits.countDaily(g.limits.callerOfState(principal, ip), { failOpen: def.quotaFailOpen });
        if (counted?.refuse) throw counted.refuse;
      }
      if (def.rateLimit) {
        const counted = await g.limits.countPerIp(def.rateLimit, ip);
        if (counted.refuse) throw counted.refuse;
      }
      if (def.auth && def.auth !== 'public') await g.authLevel(def.auth, principal);
      return principal;
    },
    failure(err) {
      const rendered = renderError(err, scene, g.deps.log, probe);
      return { rendered, result: jsonResult(rendered.body, true) };
    },
  };
}

/** A REST body as a tool result: structuredContent is the body as JSON, content[0].text its text. */
export function jsonResult(value: unknown, isError = false): CallToolResult {
  const json = typeof value === 'string' ? value : JSON.stringify(value);
  const parsed: unknown = json === undefined ? null : JSON.parse(json);
  const body = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : { value: parsed };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, ...(isError ? { isError: true } : {}) };
}
