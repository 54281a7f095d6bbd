/**
 * The Model Context Protocol server at /mcp (Streamable HTTP, stateless: one McpServer and
 * transport per HTTP request, JSON responses), built with the official @modelcontextprotocol/sdk.
 *
 * Every tool is a thin front for REST operations: its input schema IS the route's zod schema
 * (looked up by operationId, so the two cannot drift), and the tool runs by dispatching the REST
 * request in-process into this same Koa app (light-my-request) with the caller's Authorization
 * header and client address. Authentication, validation, daily quotas, per-IP rate limits, the
 * paywall and caching therefore apply exactly as on REST, and each REST request a tool makes is
 * counted like one made directly (the /mcp request itself is not counted).
 *
 * The paid tool intel_report follows the x402 MCP transport (specs/transports-v2/mcp.md): the
 * payment travels in params._meta["x402/payment"] (a PaymentPayload; it becomes the inner
 * request's PAYMENT-SIGNATURE), the settlement comes back in result._meta["x402/payment-response"],
 * and "payment required", "payment invalid" and "settlement failed" are tool results with
 * isError: true whose structuredContent (and content[0].text, as JSON) is the PaymentRequired.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import inject from 'light-my-request';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import type { RouteDef } from '../platform/http/route.js';
import { compactBazaar, type Offer } from '../payments/index.js';
import { MCP_PATH, mcpReportOffer, REPORT_TOOL } from './offer.js';

type Dispatch = (req: IncomingMessage, res: ServerResponse) => void;

/** Headers of the MCP HTTP request that the inner REST requests carry. */
const FORWARDED = ['authorization', 'x-forwarded-for', 'user-agent', 'x-request-id'];
/** How long provenance_check waits for a pending check (polling the REST poll URL). */
const CHECK_WAIT_MS = 10_000;

interface Inner {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
}

/** A route's zod schema by operationId and part: the tool's input schema is that very object. */
function schemaOf(routes: RouteDef[], operationId: string, part: 'query' | 'body' | 'params'): z.ZodObject {
  const def = routes.find((r) => r.operationId === operationId);
  const s = def?.[part];
  if (!(s instanceof z.ZodObject)) throw new Error(`MCP: route ${operationId} has no ${part} object schema`);
  return s;
}

/** Parsed tool arguments back to a query string (the route parses them again with the same schema). */
function toQuery(args: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(args)) {
    if (v === undefined || v === null) continue;
    q.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

function result(inner: Inner): CallToolResult {
  const body = inner.body && typeof inner.body === 'object' ? inner.body : { value: inner.body };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, ...(inner.status >= 400 ? { isError: true } : {}) };
}

function header(inner: Inner, name: string): string | undefined {
  const v = inner.headers[name];
  return Array.isArray(v) ? v[0] : v === undefined ? undefined : String(v);
}

export function mcpEndpoint(deps: AppDeps, routes: RouteDef[], dispatch: () => Dispatch): Middleware {
  let tools: ReturnType<typeof toolsFor> | undefined;
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    if (ctx.method !== 'POST') {
      // Stateless: no session to stream server-initiated messages on (GET) or to end (DELETE).
      ctx.status = 405;
      ctx.set('Allow', 'POST');
      ctx.body = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages' }, id: null };
      return;
    }
    tools ??= toolsFor(deps, routes, dispatch);
    const server = tools.serverFor(ctx);
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

type Call = (method: 'GET' | 'POST', path: string, o?: { body?: unknown; headers?: Record<string, string> }) => Promise<Inner>;

/** The tools' input schemas: the routes' own zod objects, by operationId. */
function schemasFor(routes: RouteDef[]) {
  const articleParams = schemaOf(routes, 'getArticle', 'params');
  const yapsQuery = schemaOf(routes, 'listYaps', 'query');
  return {
    feedQuery: schemaOf(routes, 'listArticles', 'query'),
    articleInput: articleParams.extend(yapsQuery.shape),
    searchQuery: schemaOf(routes, 'provenanceSearch', 'query'),
    checkBody: schemaOf(routes, 'provenanceCheck', 'body'),
    trendingQuery: schemaOf(routes, 'getIntelTrending', 'query'),
    reportQuery: schemaOf(routes, 'getIntelReport', 'query'),
    submitBody: schemaOf(routes, 'submitArticle', 'body'),
  };
}
type ToolSchemas = ReturnType<typeof schemasFor>;

/** A REST request dispatched into the app with the MCP request's forwarded headers and client address. */
function callerFor(ctx: Context, dispatch: () => Dispatch): Call {
  const forwarded: Record<string, string> = {};
  for (const h of FORWARDED) {
    const v = ctx.get(h);
    if (v) forwarded[h] = v;
  }
  const remoteAddress = ctx.req.socket.remoteAddress ?? '127.0.0.1';
  return async (method, path, o = {}) => {
    const res = await inject(dispatch() as never, {
      method,
      url: path,
      remoteAddress,
      headers: { ...forwarded, 'x-mcp-tool': '1', ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers },
      ...(o.body !== undefined ? { payload: JSON.stringify(o.body) } : {}),
    });
    let body: unknown = res.payload;
    try {
      body = res.payload ? JSON.parse(res.payload) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.statusCode, headers: res.headers as Inner['headers'], body };
  };
}

function registerReadTools(server: McpServer, call: Call, s: ToolSchemas): void {
  const ro = { readOnlyHint: true, openWorldHint: false };
  server.registerTool(
    'feed',
    {
      title: 'Article feed',
      description:
        'The curated article feed (GET /api/v1/news/): status, sort_type (hot, new, top), page, per_page or limit, token_address. Integers are given as decimal strings, exactly as in the REST query.',
      inputSchema: s.feedQuery,
      annotations: ro,
    },
    async (args) => result(await call('GET', `${API_PREFIX}/news/${toQuery(args)}`)),
  );

  server.registerTool(
    'article',
    {
      title: 'Article with its top yaps',
      description:
        'One article (GET /api/v1/news/{id}/) and its yaps (GET /api/v1/news/{id}/list_yaps, sort top by default; page, per_page). Result: {article, yaps: {count, results}}.',
      inputSchema: s.articleInput,
      annotations: ro,
    },
    async (args) => {
      const { id, ...q } = args as Record<string, unknown>;
      const article = await call('GET', `${API_PREFIX}/news/${id}/`);
      if (article.status !== 200) return result(article);
      const yaps = await call('GET', `${API_PREFIX}/news/${id}/list_yaps${toQuery(q)}`);
      if (yaps.status !== 200) return result(yaps);
      return result({ status: 200, headers: {}, body: { article: article.body, yaps: { count: yaps.body.count, results: yaps.body.results } } });
    },
  );

  server.registerTool(
    'search',
    {
      title: 'Search curated articles',
      description: 'Full-text and fuzzy search of curated articles of the last `days` days (GET /api/v1/provenance/search; 30 per minute per IP).',
      inputSchema: s.searchQuery,
      annotations: ro,
    },
    async (args) => result(await call('GET', `${API_PREFIX}/provenance/search${toQuery(args)}`)),
  );
}

function registerCheckTools(server: McpServer, call: Call, s: ToolSchemas): void {
  const ro = { readOnlyHint: true, openWorldHint: false };
  server.registerTool(
    'provenance_check',
    {
      title: 'Is this story new?',
      description: `Provenance check of a URL and/or headline text (POST /api/v1/provenance/check; 30 per minute per IP): verdict new, known, duplicate or stale with the matches. Waits up to ${CHECK_WAIT_MS / 1000} s for a pending check, then returns the poll state.`,
      inputSchema: s.checkBody,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      let r = await call('POST', `${API_PREFIX}/provenance/check`, { body: args });
      const until = Date.now() + CHECK_WAIT_MS;
      while (r.status === 202 && r.body?.poll_url && Date.now() < until) {
        await new Promise((res) => setTimeout(res, 500));
        r = await call('GET', r.body.poll_url);
      }
      return result(r);
    },
  );

  server.registerTool(
    'intel_trending',
    {
      title: 'Trending tags',
      description: 'Trending tags with counts and velocity, and the platform pulse (GET /api/v1/intel/trending/; 30 per minute per IP).',
      inputSchema: s.trendingQuery,
      annotations: ro,
    },
    async (args) => result(await call('GET', `${API_PREFIX}/intel/trending/${toQuery(args)}`)),
  );
}

function registerReportTool(server: McpServer, call: Call, s: ToolSchemas, deps: AppDeps, offer: Offer): void {
  const ro = { readOnlyHint: true, openWorldHint: false };
  server.registerTool(
    REPORT_TOOL,
    {
      title: 'Market intelligence report (paid)',
      description: `The market intelligence report (GET /api/v1/intel/report/). Paid: ${deps.config.X402_PRICE_ATOMIC / 1e6} USD per call over x402 (send a PaymentPayload in params._meta["x402/payment"], x402 MCP transport), or free with a builder/enterprise API key in the Authorization header of the MCP HTTP request. Without either the result is isError with the x402 PaymentRequired (structuredContent) and how to pay.`,
      inputSchema: s.reportQuery,
      annotations: ro,
      _meta: { 'x402/payment-required': true },
    },
    async (args, extra) => {
      const payment = extra._meta?.['x402/payment'] as PaymentPayload | undefined;
      const headers: Record<string, string> = {};
      if (payment !== undefined) {
        try {
          headers['payment-signature'] = encodePaymentSignatureHeader(payment);
        } catch {
          headers['payment-signature'] = '!';
        }
      }
      const r = await call('GET', `${API_PREFIX}/intel/report/${toQuery(args)}`, { headers });
      const pres = header(r, 'payment-response');
      const settlement = pres ? decodePaymentResponseHeader(pres) : undefined;
      const preq = header(r, 'payment-required');
      if (preq) return paymentRequiredResult(offer, decodePaymentRequiredHeader(preq), r, settlement);
      const out = result(r);
      return settlement ? { ...out, _meta: { 'x402/payment-response': settlement } } : out;
    },
  );
}

function registerSubmitTool(server: McpServer, call: Call, s: ToolSchemas): void {
  server.registerTool(
    'submit_article',
    {
      title: 'Submit an article',
      description:
        'Submit an article URL (optionally with a headline) to the curation queue (POST /api/v1/news/post). Needs an authenticated caller: Authorization: Bearer <API key linked to an account, or access token> on the MCP HTTP request.',
      inputSchema: s.submitBody,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args) => result(await call('POST', `${API_PREFIX}/news/post`, { body: args })),
  );
}

/** The x402 MCP transport's "payment required" result: isError, structuredContent = PaymentRequired, content[0].text = its JSON. */
function paymentRequiredResult(offer: Offer, pr: PaymentRequired, r: Inner, settlement: unknown): CallToolResult {
  const mcpPr: PaymentRequired = {
    ...pr,
    resource: { url: offer.resourceUrl!, description: offer.description, mimeType: 'application/json' },
    extensions: { bazaar: compactBazaar(offer.bazaar!) },
  };
  // (compact: a client echoes extensions into its PaymentPayload; the full output schema is in /.well-known/x402)
  const err = r.body?.error ?? {};
  const req = pr.accepts[0];
  const howTo = [
    `${err.code ?? 'payment_required'}: ${err.message ?? 'payment required'}`,
    `How to pay: sign an x402 v2 "exact" payment (EIP-3009 transferWithAuthorization of ${req?.amount} atomic units of ${req?.asset} to ${req?.payTo} on ${req?.network}) for one of the requirements in "accepts" and call ${REPORT_TOOL} again with the PaymentPayload in params._meta["x402/payment"] (x402 MCP transport).`,
    'Or send Authorization: Bearer <API key> of the builder or enterprise tier on the MCP HTTP request (the builder tier includes the report).',
  ].join('\n');
  return {
    isError: true,
    structuredContent: mcpPr as unknown as Record<string, unknown>,
    content: [
      { type: 'text', text: JSON.stringify(mcpPr) },
      { type: 'text', text: howTo },
    ],
    ...(settlement ? { _meta: { 'x402/payment-response': settlement } } : {}),
  };
}

function toolsFor(deps: AppDeps, routes: RouteDef[], dispatch: () => Dispatch) {
  const schemas = schemasFor(routes);
  const offer = mcpReportOffer(deps);
  function serverFor(ctx: Context): McpServer {
    const call = callerFor(ctx, dispatch);
    const server = new McpServer(
      { name: 'squid-news', version: '1.2.0' },
      { instructions: 'Squid News: crypto/DeFi news feed, provenance checks and market intelligence. See /llms.txt.' },
    );
    registerReadTools(server, call, schemas);
    registerCheckTools(server, call, schemas);
    registerReportTool(server, call, schemas, deps, offer);
    registerSubmitTool(server, call, schemas);
    return server;
  }
  return { serverFor };
}
