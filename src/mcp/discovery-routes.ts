/**
 * Machine-readable entry points for agents, at the host root:
 *  - GET /.well-known/x402  every paid resource with its x402 v2 payment requirements (price, network,
 *                           asset, payTo), description and input/output JSON Schemas, shaped like the
 *                           x402 discovery list (v2 specification §8: {x402Version, items, pagination})
 *                           with each item's `bazaar` extension (specs/extensions/bazaar.md);
 *  - GET /llms.txt          a Markdown summary of the API (llmstxt.org) linking the OpenAPI document,
 *                           the discovery document and the MCP endpoint, and listing every operation.
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { API_PREFIX, errorSchema } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { MCP_PATH, mcpReportOffer, REPORT_TOOL } from './offer.js';
import { PaymentRejection } from '../payments/index.js';
import { Paywall } from '../payments/index.js';
import { formatUnits6, type Offer } from '../payments/index.js';
import { reportOffer } from '../intel/index.js';
import { sponsoredOffer } from '../sponsored/index.js';

const DISCOVERY_PATH = '/.well-known/x402';
const LLMS_PATH = '/llms.txt';

const requirementsSchema = z.object({
  scheme: z.string(),
  network: z.string(),
  asset: z.string(),
  amount: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().int(),
  extra: z.record(z.string(), z.unknown()),
});

const discoverySchema = z
  .object({
    x402Version: z.literal(2),
    items: z.array(
      z.object({
        resource: z.string().meta({ description: 'The resource URL (for an MCP tool: the MCP endpoint; the tool is extensions.bazaar.info.input.tool)' }),
        type: z.enum(['http', 'mcp']),
        x402Version: z.literal(2),
        accepts: z.array(requirementsSchema),
        lastUpdated: z.number().int().meta({ description: 'Unix time when this process built the list (prices come from configuration)' }),
        description: z.string(),
        mimeType: z.string(),
        extensions: z.object({
          bazaar: z
            .object({ info: z.record(z.string(), z.unknown()), schema: z.record(z.string(), z.unknown()) })
            .meta({ description: 'x402 bazaar extension: info (method or tool, example input) and the JSON Schema of info (input and output schemas)' }),
        }),
        metadata: z
          .record(z.string(), z.unknown())
          .meta({ description: 'provider, category, method, path, price {amount_atomic, display}, alternatives (API-key tiers, mainnet transfer)' }),
      }),
    ),
    pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
    links: z.record(z.string(), z.string()),
  })
  .meta({ id: 'X402Discovery' });

interface Discovery {
  deps: AppDeps;
  paywall: Paywall;
  /** Unix time when this process built the list. */
  built: number;
  abs(path: string): string;
  links: Record<'openapi' | 'discovery' | 'mcp' | 'llms', string>;
}

function discoveryOf(deps: AppDeps): Discovery {
  const abs = (p: string) => new URL(p, deps.config.PUBLIC_BASE_URL).toString();
  return {
    deps,
    paywall: new Paywall(deps),
    built: Math.floor(Date.now() / 1000),
    abs,
    links: {
      openapi: abs(`${API_PREFIX}/openapi.json`),
      discovery: abs(DISCOVERY_PATH),
      mcp: abs(MCP_PATH),
      llms: abs(LLMS_PATH),
    },
  };
}

/** One paid resource as a discovery item. */
function discoveryItem(d: Discovery, offer: Offer, type: 'http' | 'mcp', extra: Record<string, unknown>) {
  return {
    resource: offer.resourceUrl ?? d.abs(offer.path),
    type,
    x402Version: 2 as const,
    accepts: [d.paywall.requirementsFor(offer)],
    lastUpdated: d.built,
    description: offer.description,
    mimeType: 'application/json',
    extensions: { bazaar: offer.bazaar! },
    metadata: {
      provider: 'Squid News',
      category: 'news',
      price: { amount_atomic: offer.amountAtomic.toString(), decimals: 6, display: `${formatUnits6(offer.amountAtomic)} USD` },
      ...extra,
    },
  };
}

/** Every paid resource; throws PaymentRejection 'unavailable' when payments are not configured. */
function discoveryItems(d: Discovery) {
  const { deps } = d;
  const item = (offer: Offer, type: 'http' | 'mcp', extra: Record<string, unknown>) => discoveryItem(d, offer, type, extra);
  try {
    return [
      item(reportOffer(deps), 'http', {
        method: 'GET',
        path: `${API_PREFIX}/intel/report/`,
        alternatives: {
          api_key: { header: 'Authorization: Bearer <API key>', tiers: ['builder', 'enterprise'] },
          mainnet_transfer: { headers: ['X-Payment-Tx', 'X-Payment-From'] },
        },
      }),
      item(mcpReportOffer(deps), 'mcp', {
        tool: REPORT_TOOL,
        transport: 'streamable-http',
        payment: 'x402 MCP transport: params._meta["x402/payment"] = PaymentPayload; the result carries _meta["x402/payment-response"]',
        alternatives: { api_key: { header: 'Authorization: Bearer <API key> on the MCP HTTP request', tiers: ['builder', 'enterprise'] } },
      }),
      item(sponsoredOffer(deps), 'http', {
        method: 'POST',
        path: `${API_PREFIX}/sponsored/`,
        alternatives: { mainnet_transfer: { headers: ['X-Payment-Tx', 'X-Payment-From'] } },
        note: "above the official x402 client's default $1 per-payment cap: raise it with spendControls.maxAmountPerPayment",
      }),
    ];
  } catch (err) {
    // Payments unavailable (not configured): 503 as the registry says. Any other refusal
    // cannot come from building an offer: an internal error, not a payment answer.
    if (err instanceof PaymentRejection && err.rejection !== 'unavailable') throw new Error(`unexpected payment refusal ${err.code} in discovery`, { cause: err });
    throw err;
  }
}

function discoveryRoute(d: Discovery): RouteDef {
  return defineRoute({
    method: 'get',
    path: DISCOVERY_PATH,
    mount: 'root',
    operationId: 'getX402Discovery',
    summary: 'x402 discovery: every paid resource, its price and how to pay',
    description: [
      "The paid resources of this service (the intel report over HTTP, the intel_report MCP tool, sponsored posts) with their x402 v2 payment requirements (accepts: scheme exact, network, asset, amount, payTo, maxTimeoutSeconds, extra = the token's EIP-712 domain) and the x402 `bazaar` extension (info.input: HTTP method or MCP tool and an example; schema: JSON Schema 2020-12 of info, including the input parameters' and the output's schemas, generated from the routes' own schemas).",
      'The shape follows the x402 v2 discovery list (`{x402Version, items: [{resource, type, x402Version, accepts, lastUpdated, metadata}], pagination}`), with `description`, `mimeType` and `extensions` added per item, and `links` to the OpenAPI document, the MCP endpoint and llms.txt. The 402 answer of each paid resource carries the same `extensions.bazaar` in PaymentRequired (the PAYMENT-REQUIRED header leaves out the output schema for size; the body has it whole).',
      '503 payments_not_configured when X402_PAY_TO is unset.',
    ].join('\n\n'),
    tags: ['meta'],
    unmetered: true,
    responses: { 200: { description: 'the discovery list', schema: discoverySchema }, 503: { description: 'payments_not_configured', schema: errorSchema } },
    handler(ctx) {
      const items = discoveryItems(d);
      ctx.set('Cache-Control', 'public, max-age=60');
      ctx.body = { x402Version: 2, items, pagination: { limit: items.length, offset: 0, total: items.length }, links: d.links };
    },
  });
}

function llmsRoute(d: Discovery, routes: () => RouteDef[]): RouteDef {
  return defineRoute({
    method: 'get',
    path: LLMS_PATH,
    mount: 'root',
    operationId: 'getLlmsTxt',
    summary: 'llms.txt: the API summarised for agents (Markdown)',
    description:
      'A Markdown summary (llmstxt.org): what the service is, how to authenticate and pay, the limits, links to the OpenAPI document, the x402 discovery document and the MCP endpoint, and every operation with its method, path and summary.',
    tags: ['meta'],
    unmetered: true,
    responses: { 200: { description: 'Markdown', contentType: 'text/plain', schema: z.string() } },
    handler(ctx) {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = llmsTxt(d.deps, d.links, routes());
    },
  });
}

export function discoveryRoutes(deps: AppDeps, routes: () => RouteDef[]): RouteDef[] {
  const d = discoveryOf(deps);
  return [discoveryRoute(d), llmsRoute(d, routes)];
}

function llmsTxt(deps: AppDeps, links: Record<string, string>, routes: RouteDef[]): string {
  const c = deps.config;
  const report = `${formatUnits6(BigInt(c.X402_PRICE_ATOMIC))} USD`;
  const ad = `${formatUnits6(BigInt(c.SPONSORED_PRICE_ATOMIC))} USD`;
  const ops = routes
    .filter((r) => !r.path.startsWith('/.well-known') && r.path !== LLMS_PATH)
    .map(
      (r) =>
        `- ${r.method.toUpperCase()} ${(r.mount ?? 'api') === 'api' ? API_PREFIX : ''}${r.path.replace(/:([a-z_]+)/g, '{$1}')}: ${r.summary}${r.auth && r.auth !== 'public' ? ` (auth: ${r.auth})` : ''}`,
    );
  return [
    '# Squid News API',
    '',
    '> Crowdsourced crypto and DeFi news with community curation: an article feed with hot/new/top ranking, yaps (short comments), provenance checks (is this story new?), market intelligence (trending tags; a paid report), sponsored posts, live events over WebSocket/SSE, and an MCP server for agents.',
    '',
    'Base URL: ' + new URL(API_PREFIX + '/', c.PUBLIC_BASE_URL).toString(),
    '',
    '## Machine-readable',
    '',
    `- [OpenAPI document](${links.openapi}): every operation, parameter, response and error code`,
    `- [x402 discovery](${links.discovery}): paid resources, prices, networks, assets, payTo, input/output schemas (x402 bazaar extension)`,
    `- [MCP endpoint](${links.mcp}): Model Context Protocol over Streamable HTTP (POST JSON-RPC); tools feed, article, search, provenance_check, intel_trending, intel_report (paid), submit_article`,
    '',
    '## Authentication',
    '',
    '- Most reads need no credentials. Send `Authorization: Bearer <API key>` (or a wallet-session access token) to be counted against your own daily quota and to act as an account.',
    '- API keys: free (1,000 requests/day), builder (50,000/day; includes the intel report), enterprise (unlimited). Anonymous callers share a per-IP daily quota; some routes also have per-IP per-minute limits (429 with Retry-After).',
    '- Writes (submit an article, vote, yap) need an authenticated caller.',
    '',
    '## Paying (x402 v2)',
    '',
    `- GET ${API_PREFIX}/intel/report/ costs ${report} per call; POST ${API_PREFIX}/sponsored/ costs ${ad}. Network ${c.X402_NETWORK}, scheme exact (EIP-3009 USDC).`,
    '- Without payment: 402 with header PAYMENT-REQUIRED (base64 JSON PaymentRequired). Sign and retry with PAYMENT-SIGNATURE. A malformed PAYMENT-SIGNATURE is 400.',
    `- Settlement mode: ${c.X402_SETTLEMENT_MODE}. ${c.X402_SETTLEMENT_MODE === 'sync' ? 'The payment is settled before the resource is returned; PAYMENT-RESPONSE carries the transaction hash. A failed settlement is 402 and nothing is delivered. 503 payment_settlement_pending (the facilitator timed out; you may have been charged): retry with the SAME PAYMENT-SIGNATURE after Retry-After, not a new one; the resource is delivered once when the payment has settled.' : 'The resource is served before settlement; PAYMENT-RESPONSE says success false, errorReason settlement_pending, with extra.status_url to poll.'}`,
    '- The official client (@x402/fetch) caps a payment at $1 by default; raise spendControls.maxAmountPerPayment for sponsored posts.',
    '- Over MCP: call the tool intel_report with params._meta["x402/payment"] (x402 MCP transport), or with a builder/enterprise API key on the HTTP request.',
    '',
    '## Operations',
    '',
    ...ops,
    '',
  ].join('\n');
}
