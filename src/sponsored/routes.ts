/**
 * Sponsored posts (spec: Events, origin x402_ad and the sponsored object):
 *  - POST /sponsored/              an advertiser buys a post over the same x402 flow as the report
 *                                  (or the mainnet fallback); price SPONSORED_PRICE_ATOMIC, tier express
 *  - GET  /sponsored/              editors: the ads, filterable by ad_status
 *  - POST /sponsored/:id/approve   editors: publish it; news.sponsored goes out (flushed ahead of the batch)
 *  - POST /sponsored/:id/reject    editors: kill it (news.killed, staff only)
 * Ad states are documented in src/sponsored/queries.ts and in the OpenAPI descriptions. A sponsored
 * article carries origin x402_ad and sponsored {tier, ad_status, is_paid} in the feed; provenance
 * search leaves it out (sponsored IS NOT NULL).
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { errorResponses, errorSchema } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { PAYMENT_RESPONSE_DOC, SETTLEMENT_DOC, SETTLEMENT_PENDING_DOC } from '../payments/index.js';
import { Paywall } from '../payments/index.js';
import { AD_STATUSES, listAds, type AdRow } from './queries.js';
import { adSchema, buyBody, type sponsoredObject } from './schemas.js';
import { sponsoredOffer } from './offer.js';
import { buyAd, decideAdOrThrow } from './service.js';
import { isoTimeOrNull } from '../platform/iso-time.js';

const AD_STATES_DOC = [
  'Ad states (sponsored.ad_status):',
  '- sponsored_pending: bought, waiting for an editor. is_paid is true once the payment has settled: at once with X402_SETTLEMENT_MODE=sync (the default) and for a mainnet transfer; in deferred mode false until the settle-payment job has settled it.',
  '- sponsored_approved: an editor approved it; the article is published (status approved) and the event news.sponsored was sent, ahead of any pending event batch.',
  '- sponsored_rejected: an editor rejected it; the article is killed. Refunds are handled off-platform.',
  '- sponsored_payment_failed: the x402 settlement failed for good; the article is killed and can never go live.',
].join('\n');

const idParam = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().max(2_147_483_647, 'is out of range')),
});

function toAdFor(paywall: Paywall) {
  return (r: AdRow) => ({
    article_id: r.id,
    slug: r.slug,
    headline: r.headline,
    url: r.url,
    source: r.source,
    status: r.status,
    origin: 'x402_ad' as const,
    tags: r.tags,
    sponsored: r.sponsored as z.infer<typeof sponsoredObject>,
    created_at: r.created_at.toISOString(),
    published_at: isoTimeOrNull(r.published_at),
    payment: r.payment_id ? { id: r.payment_id, method: r.payment_method as 'x402', state: r.payment_state as 'verified', status_url: paywall.statusUrl(r.payment_id) } : null,
  });
}

type ToAd = ReturnType<typeof toAdFor>;

function buyRoute(deps: AppDeps, paywall: Paywall, toAd: ToAd): RouteDef {
  const offer = sponsoredOffer(deps);
  return defineRoute({
    method: 'post',
    path: '/sponsored/',
    operationId: 'buySponsoredPost',
    summary: 'Buy a sponsored post (tier express) over x402 or a mainnet stablecoin transfer',
    description: [
      `Price: ${deps.config.SPONSORED_PRICE_ATOMIC} atomic units of the x402 asset (${deps.config.SPONSORED_PRICE_ATOMIC / 1e6} USDC). The payment flow is the one of GET /intel/report/: 402 with PAYMENT-REQUIRED, then the same request with PAYMENT-SIGNATURE (or X-Payment-Tx + X-Payment-From). API keys do not pay for ads. The price is above the official x402 client's default per-payment cap ($1): raise it with x402Client.setSpendControls({ maxAmountPerPayment: '$25' }) (see README).`,
      `Settlement: ${SETTLEMENT_DOC} In sync mode the ad is created with is_paid true; in deferred mode with is_paid false until the settle-payment job settles it.`,
      'The body is validated before payment (a bad body is 400 and costs nothing). On success the article is created with status submitted, origin x402_ad and sponsored {tier, ad_status: sponsored_pending, is_paid}; an editor approves or rejects it. The staff-only event news.submitted is recorded with it. Anyone may buy; a signed-in buyer is recorded as the submitter.',
      AD_STATES_DOC,
    ].join('\n\n'),
    tags: ['sponsored'],
    body: buyBody,
    responses: {
      201: { description: 'the ad, pending review', schema: adSchema, headers: { 'PAYMENT-RESPONSE': { description: PAYMENT_RESPONSE_DOC, schema: z.string() } } },
      402: {
        description: 'Payment required or refused (codes as for GET /intel/report/)',
        schema: errorSchema,
        headers: {
          'PAYMENT-REQUIRED': { description: 'base64 JSON x402 v2 PaymentRequired', schema: z.string() },
          'PAYMENT-RESPONSE': { description: 'payment_settlement_failed only: base64 JSON {success: false, errorReason, transaction: "", network, payer}', schema: z.string() },
        },
      },
      ...errorResponses({
        400: 'validation_failed (body; checked before payment), or payment_invalid_encoding: a malformed PAYMENT-SIGNATURE',
        503: `payments_not_configured, payment_fallback_unavailable, payment_verifier_unavailable or payment_settlement_unavailable (nothing charged, no post created), or ${SETTLEMENT_PENDING_DOC}; no post is created until the payment is delivered, and the retry that delivers it creates exactly one (from its own body)`,
      }),
    },
    async handler(ctx, { body }) {
      const grant = await paywall.authorize(ctx, offer);
      const ad = await buyAd(deps.db, grant, { ...body, submittedBy: ctx.state.user?.id ?? null });
      ctx.status = 201;
      ctx.body = toAd(ad);
    },
  });
}

function listRoute(deps: AppDeps, toAd: ToAd): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/sponsored/',
    operationId: 'listSponsoredPosts',
    summary: 'Sponsored posts, newest first (editors)',
    description: AD_STATES_DOC,
    tags: ['sponsored'],
    auth: 'editor',
    query: z.object({
      ad_status: z.enum(AD_STATUSES).optional().meta({ description: 'Only ads in this state' }),
      page: queryInt({ min: 1, max: 10_000, default: 1 }),
      per_page: queryInt({ min: 1, max: 100, default: 20 }),
    }),
    responses: { 200: { description: 'ads', schema: z.object({ results: z.array(adSchema), count: z.number().int() }) } },
    async handler(ctx, { query }) {
      const perPage = query.per_page;
      const { rows, count } = await listAds(deps.db, { adStatus: query.ad_status, limit: perPage, offset: (query.page - 1) * perPage });
      ctx.body = { results: rows.map(toAd), count };
    },
  });
}

function approveRoute(deps: AppDeps, toAd: ToAd): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/sponsored/:id/approve',
    operationId: 'approveSponsoredPost',
    summary: 'Approve a paid sponsored post: it goes live and news.sponsored is published (editors)',
    description:
      'sponsored_pending with is_paid true -> sponsored_approved; the article becomes approved with published_at now and its hot score computed, and news.sponsored is published (the broadcaster sends it at once, ahead of the pending batch). 409 ad_not_paid while the payment settles, 409 ad_not_pending once decided.',
    tags: ['sponsored'],
    auth: 'editor',
    params: idParam,
    responses: { 200: { description: 'the ad, live', schema: adSchema }, ...errorResponses({ 404: 'ad_not_found', 409: 'ad_not_pending or ad_not_paid' }) },
    async handler(ctx, { params }) {
      const ad = await decideAdOrThrow(deps.db, { id: params.id, editorId: ctx.state.user!.id, action: 'approve', hotScoreWindowHours: deps.config.HOT_SCORE_WINDOW_HOURS });
      ctx.body = toAd(ad);
    },
  });
}

function rejectRoute(deps: AppDeps, toAd: ToAd): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/sponsored/:id/reject',
    operationId: 'rejectSponsoredPost',
    summary: 'Reject a sponsored post: it is killed (editors)',
    description: 'sponsored_pending -> sponsored_rejected; the article becomes killed and the staff-only event news.killed is published.',
    tags: ['sponsored'],
    auth: 'editor',
    params: idParam,
    responses: { 200: { description: 'the ad, rejected', schema: adSchema }, ...errorResponses({ 404: 'ad_not_found', 409: 'ad_not_pending' }) },
    async handler(ctx, { params }) {
      const ad = await decideAdOrThrow(deps.db, { id: params.id, editorId: ctx.state.user!.id, action: 'reject', hotScoreWindowHours: deps.config.HOT_SCORE_WINDOW_HOURS });
      ctx.body = toAd(ad);
    },
  });
}

export function sponsoredRoutes(deps: AppDeps): RouteDef[] {
  const paywall = new Paywall(deps);
  const toAd = toAdFor(paywall);
  return [buyRoute(deps, paywall, toAd), listRoute(deps, toAd), approveRoute(deps, toAd), rejectRoute(deps, toAd)];
}
