/**
 * Market intelligence (spec: Market intelligence endpoints, Intel reports, Paid access):
 *  - GET /intel/trending/  free, 30 requests per minute per IP
 *  - GET /intel/report/    paid: x402 (PAYMENT-SIGNATURE), builder/enterprise API key, or a mainnet
 *                          stablecoin transfer (X-Payment-Tx + X-Payment-From)
 * Both are computed by worker jobs (intel-trending, intel-report) into a Redis cache, one entry per
 * parameter set for INTEL_CACHE_TTL_S (default 300 s). The web process serves the cache; on a miss it
 * enqueues the computation and waits at most JOB_WAIT_MS (default 3 s), else 503 intel_pending with
 * Retry-After. A paid request whose report is not ready is not charged: the payment is consumed only
 * when the report is served.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { DEFAULT_HOURS, HOURS_RANGE, TRENDING_TOP_N, type ReportParams } from './rules/report.js';
import { errorResponses as errors, errorSchema } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { IntelService, type IntelAnswer } from './service.js';
import { codesOfArea } from '../platform/errors/codes.js';
import { PAYMENT_RESPONSE_DOC, SETTLEMENT_DOC, SETTLEMENT_PENDING_DOC } from '../payments/index.js';
import { Paywall } from '../payments/index.js';
import { reportSchema, trendingSchema } from './schemas.js';
import { REPORT_ACCESS, reportOffer, reportQuery } from './offer.js';

const trendingQuery = z.object({
  hours: queryInt({ min: HOURS_RANGE.min, max: HOURS_RANGE.max, default: DEFAULT_HOURS }).meta({ description: 'Window in hours, 1-168 (default 24)' }),
  top_n: queryInt({ min: TRENDING_TOP_N.min, max: TRENDING_TOP_N.max, default: TRENDING_TOP_N.default }).meta({ description: 'Tags returned, 1-50 (default 20)' }),
});

/** Sends an intel answer: the cached JSON as-is, X-Intel-Cache, and private, no-store when paid for. */
function send(ctx: Context, answer: IntelAnswer): void {
  if (answer.grant) ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Intel-Cache', answer.hit ? 'hit' : 'miss');
  ctx.type = 'application/json';
  ctx.body = answer.json;
}

function trendingRoute(intel: IntelService): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/intel/trending/',
    operationId: 'getIntelTrending',
    summary: 'Trending tags with article counts and velocity, and the platform pulse',
    description: [
      'Tags of approved articles published in the last `hours` (sponsored posts excluded), with their article counts in the whole window and in its two halves, and velocity (acceleration) = (recent - earlier) / max(earlier, 1).',
      'platform_pulse counts published articles over the last 1, 6 and 24 hours.',
      'Computed by the worker and cached per (hours, top_n) for INTEL_CACHE_TTL_S (default 300 s); the default set and recently requested sets are refreshed every 4 minutes. On a cache miss the request waits for the computation at most JOB_WAIT_MS, else 503 intel_pending with Retry-After. Header X-Intel-Cache: hit | miss.',
      'Limit: 30 requests per minute per IP.',
    ].join('\n\n'),
    tags: ['intel'],
    query: trendingQuery,
    rateLimit: { key: 'intel-trending', points: 30, durationS: 60 },
    responses: {
      200: { description: 'trending tags', schema: trendingSchema, headers: { 'X-Intel-Cache': { description: 'hit or miss', schema: z.enum(['hit', 'miss']) } } },
      ...errors({ 503: `Not ready or failed (${codesOfArea('Intel').join(', ')}); Retry-After says when to retry` }),
    },
    async handler(ctx, { query }) {
      send(ctx, await intel.trending({ hours: query.hours, top_n: query.top_n }));
    },
  });
}

function reportRoute(deps: AppDeps, intel: IntelService): RouteDef {
  const paywall = new Paywall(deps);
  const offer = reportOffer(deps);
  return defineRoute({
    method: 'get',
    path: '/intel/report/',
    operationId: 'getIntelReport',
    summary: 'Market intelligence report (paid: $0.25 per call over x402, or a builder/enterprise API key)',
    description: [
      'Paid access, three ways:',
      `1. x402 v2 (primary). Without a credential the answer is 402 with header PAYMENT-REQUIRED: base64 JSON {x402Version: 2, resource, accepts: [{scheme: "exact", network: X402_NETWORK (default eip155:8453, Base), asset: USDC, amount: "${deps.config.X402_PRICE_ATOMIC}", payTo, maxTimeoutSeconds, extra: {name, version}}]}; the same object is in the body's error.details. Sign an EIP-3009 TransferWithAuthorization for exactly that amount to payTo (EIP-712 domain: extra.name, extra.version, the network's chain id, verifyingContract = asset) and retry with header PAYMENT-SIGNATURE: base64 JSON {x402Version: 2, accepted: <the requirement>, payload: {authorization: {from, to, value, validAfter, validBefore, nonce}, signature}}. The server checks the signature locally, recipient, amount, validity window and that the nonce never paid before (shared by every web process), then ${SETTLEMENT_DOC}`,
      '2. Authorization: Bearer <API key> of the builder or enterprise tier: no payment. A free-tier key gets 402 api_key_tier_insufficient with the payment options.',
      `3. Fallback: headers X-Payment-Tx (transaction hash) and X-Payment-From (sender) of a USDC or USDT transfer on Ethereum mainnet to payTo of at least ${deps.config.X402_PRICE_ATOMIC / 1e6} (atomic ${deps.config.X402_PRICE_ATOMIC}), with MAINNET_MIN_CONFIRMATIONS (default 12) confirmations. Each transaction hash pays one call.`,
      `A malformed PAYMENT-SIGNATURE (not base64 JSON of a v2 payment payload) is 400 payment_invalid_encoding, as the x402 v2 HTTP transport specifies; every other refusal is 402 (with a fresh PAYMENT-REQUIRED) and its own code: ${codesOfArea(
        'Payments',
      )
        .filter(
          (c) =>
            ![
              'payments_not_configured',
              'payment_fallback_unavailable',
              'payment_verifier_unavailable',
              'payment_not_found',
              'payment_invalid_encoding',
              'payment_settlement_unavailable',
              'payment_settlement_pending',
            ].includes(c),
        )
        .join(', ')}. A payment is consumed only when the report is served (not on 4xx/503).`,
      'The report is computed by the worker and cached per (hours, topics, top_n) for INTEL_CACHE_TTL_S (default 300 s); header X-Intel-Cache: hit | miss. On a miss the request waits at most JOB_WAIT_MS, else 503 intel_pending (not charged).',
    ].join('\n\n'),
    tags: ['intel'],
    query: reportQuery,
    security: [['bearerAuth'], []],
    responses: {
      200: {
        description: 'the report',
        schema: reportSchema,
        headers: {
          'PAYMENT-RESPONSE': { description: PAYMENT_RESPONSE_DOC, schema: z.string() },
          'X-Intel-Cache': { description: 'hit or miss', schema: z.enum(['hit', 'miss']) },
        },
      },
      402: {
        description: 'Payment required or refused (see the description for codes); body error.details holds the x402 PaymentRequired object and the alternatives',
        schema: errorSchema,
        headers: {
          'PAYMENT-REQUIRED': { description: 'base64 JSON x402 v2 PaymentRequired', schema: z.string() },
          'PAYMENT-RESPONSE': { description: 'payment_settlement_failed only: base64 JSON {success: false, errorReason, transaction: "", network, payer}', schema: z.string() },
        },
      },
      ...errors({
        400: 'validation_failed (query), or payment_invalid_encoding: a malformed PAYMENT-SIGNATURE (PAYMENT-REQUIRED is sent too)',
        503: `Not ready, failed or payments unavailable (${[...codesOfArea('Intel'), 'payments_not_configured', 'payment_fallback_unavailable', 'payment_verifier_unavailable', 'payment_settlement_unavailable'].join(', ')}; Retry-After says when to retry), or ${SETTLEMENT_PENDING_DOC}`,
      }),
    },
    async handler(ctx, { query }) {
      const p: ReportParams = { hours: query.hours, topics: query.topics, top_n: query.top_n };
      send(ctx, await intel.report(p, () => paywall.authorize(ctx, offer, REPORT_ACCESS)));
    },
  });
}

export function intelRoutes(deps: AppDeps): RouteDef[] {
  const intel = new IntelService(deps);
  return [trendingRoute(intel), reportRoute(deps, intel)];
}
