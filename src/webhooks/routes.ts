/**
 * Webhook endpoints, for authenticated callers: an API key or a signed-in session.
 *  - POST   /webhooks/                                  create (the signing secret is in this answer only)
 *  - GET    /webhooks/                                  the caller's endpoints, paged
 *  - GET    /webhooks/<id>/, PATCH, DELETE              one endpoint
 *  - POST   /webhooks/<id>/rotate-secret/               new secret (once); the old one signs too for 24 h
 *  - POST   /webhooks/<id>/test/                        queue a webhook.test delivery now
 *  - GET    /webhooks/<id>/deliveries/                  its deliveries, newest first
 *  - POST   /webhooks/<id>/deliveries/<delivery_id>/redeliver/
 * Each route validates, calls the use case in src/webhooks/service.ts and shapes the answer
 * (src/webhooks/schemas.ts). Deliveries themselves are made by the worker (src/webhooks/deliver.ts).
 */
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { idParam } from '../articles/index.js';
import { requireAuth } from '../identity/index.js';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { errorResponses, errorSchema } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import type { Owner } from './queries.js';
import { WEBHOOK_ENDPOINT_CAPS } from './rules/caps.js';
import { MAX_ATTEMPTS, retryHorizonMs } from './rules/retry.js';
import { createdSchema, deliveryIdParam, deliverySchema, descriptionInput, endpointSchema, endpointUrl, eventTypesInput, filtersInput, toDelivery, toEndpoint } from './schemas.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listEndpointDeliveries,
  listOwnEndpoints,
  ownEndpoint,
  redeliver,
  rotateWebhookSecret,
  sendTestDelivery,
  updateWebhookEndpoint,
  webhooksNotConfigured,
} from './service.js';
import { webhookKey } from './secrets.js';

/** What every webhook route shares: the dependencies, the caller check, the URL rule of this deployment. */
interface Kit {
  deps: AppDeps;
  before: Middleware[];
  urlSchema: ReturnType<typeof endpointUrl>;
}

const security = [['cookieAuth'], ['bearerAuth']];
const common = errorResponses({ 401: 'auth_required: no API key or session', 404: 'webhook_not_found', 503: 'webhooks_not_configured' });

const ownerOf = (ctx: Context): Owner => (ctx.state.user ? { kind: 'user', userId: ctx.state.user.id } : { kind: 'api_key', apiKeyId: ctx.state.apiKey!.id });

/** API keys (linked or not) and sessions; a session's account must still exist (requireAuth). */
function webhookCaller(deps: AppDeps): Middleware {
  const configured = webhookKey(deps.config) !== null;
  const userGuard = requireAuth('user', deps.db);
  return async (ctx, next) => {
    if (ctx.state.user) return userGuard(ctx, () => (configured ? next() : Promise.reject(webhooksNotConfigured())));
    if (!ctx.state.apiKey) {
      const p = ctx.state.authProblem;
      throw new DomainError(
        p?.code ?? 'auth_required',
        p?.message ?? 'authentication required: an API key (Authorization: Bearer squid_...) or a signed-in session (access_token cookie or Bearer JWT)',
      );
    }
    if (!configured) throw webhooksNotConfigured();
    await next();
  };
}

export function webhookRoutes(deps: AppDeps): RouteDef[] {
  const k: Kit = { deps, before: [webhookCaller(deps)], urlSchema: endpointUrl(deps.config.OUTBOUND_ALLOW_PRIVATE) };
  return [createRoute, listRoute, getRoute, updateRoute, deleteRoute, rotateSecretRoute, testRoute, deliveriesRoute, redeliverRoute].map((route) => route(k));
}

function createRoute(k: Kit): RouteDef {
  const { config } = k.deps;
  const horizonH = Math.round((retryHorizonMs(config.WEBHOOK_RETRY_BASE_MS) / 3600_000) * 10) / 10;
  return defineRoute({
    method: 'post',
    path: '/webhooks/',
    operationId: 'createWebhook',
    summary: 'Create a webhook endpoint; the answer carries its signing secret, once',
    description: [
      'Deliveries follow the Standard Webhooks specification: POST with body `{type, timestamp, data}` (data = the event object exactly as on the stream and GET /api/v1/events/, `event_id` included; timestamp = when the event was recorded) and headers `webhook-id` (msg_<delivery id>, the same on every retry), `webhook-timestamp` (unix seconds of the attempt) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the base64-decoded part of the secret after `whsec_`). Verify with any Standard Webhooks library.',
      `Delivery is at least once and not ordered across retries: dedupe by webhook-id or data.event_id. 2xx is success; any other status, a timeout (${config.WEBHOOK_TIMEOUT_MS / 1000} s), a connection error or a redirect (never followed) is retried with exponential backoff and jitter, ${MAX_ATTEMPTS} attempts over about ${horizonH} h. 410 Gone disables the endpoint at once; failing for longer than that horizon disables it too (disabled_reason says why).`,
      `Caps on endpoints per owner: account ${WEBHOOK_ENDPOINT_CAPS.account} (or the largest cap of its active API keys' tiers), API key not linked to an account: free ${WEBHOOK_ENDPOINT_CAPS.free}, builder ${WEBHOOK_ENDPOINT_CAPS.builder}, enterprise ${WEBHOOK_ENDPOINT_CAPS.enterprise}; beyond: 403 webhook_limit_reached.`,
    ].join('\n\n'),
    tags: ['webhooks'],
    security,
    before: k.before,
    body: z.strictObject({
      url: k.urlSchema,
      description: descriptionInput.optional(),
      event_types: eventTypesInput.optional(),
      filters: filtersInput.optional(),
    }),
    responses: {
      201: { description: 'created; `secret` is shown only here', schema: createdSchema, headers: { Location: { description: 'The endpoint' } } },
      ...common,
      403: { description: 'webhook_limit_reached (details {limit, count})', schema: errorSchema },
    },
    async handler(ctx, { body }) {
      const { row, secret } = await createWebhookEndpoint(
        k.deps,
        { owner: ownerOf(ctx), apiKeyTier: ctx.state.apiKey?.tier },
        { url: body.url, description: body.description, eventTypes: body.event_types, filters: body.filters },
      );
      ctx.status = 201;
      ctx.set('Location', `/api/v1/webhooks/${row.id}/`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { ...toEndpoint(row), secret };
    },
  });
}

function listRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/webhooks/',
    operationId: 'listWebhooks',
    summary: "The caller's webhook endpoints, oldest first",
    description: '`page` 1-10000 (default 1), `per_page` 1-100 (default 20). A page past the end is empty.',
    tags: ['webhooks'],
    security,
    before: k.before,
    query: z.strictObject({ page: queryInt({ min: 1, max: 10_000, default: 1 }), per_page: queryInt({ min: 1, max: 100, default: 20 }) }),
    responses: {
      200: {
        description: 'endpoints',
        schema: z
          .object({
            results: z.array(endpointSchema),
            pagination: z.object({
              page: z.number().int(),
              per_page: z.number().int(),
              total: z.number().int(),
              total_pages: z.number().int(),
              has_next: z.boolean(),
              has_previous: z.boolean(),
            }),
          })
          .meta({ id: 'WebhookEndpointList' }),
      },
      ...errorResponses({ 401: 'auth_required', 503: 'webhooks_not_configured' }),
    },
    async handler(ctx, { query }) {
      const page = query.page;
      const perPage = query.per_page;
      const { rows, total } = await listOwnEndpoints(k.deps.db, ownerOf(ctx), page, perPage);
      const totalPages = Math.ceil(total / perPage);
      ctx.body = {
        results: rows.map(toEndpoint),
        pagination: { page, per_page: perPage, total, total_pages: totalPages, has_next: page < totalPages, has_previous: page > 1 && totalPages > 0 },
      };
    },
  });
}

function getRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/webhooks/:id/',
    operationId: 'getWebhook',
    summary: 'One webhook endpoint (never its secret)',
    tags: ['webhooks'],
    security,
    before: k.before,
    params: idParam,
    responses: { 200: { description: 'the endpoint', schema: endpointSchema }, ...common },
    async handler(ctx, { params }) {
      ctx.body = toEndpoint(await ownEndpoint(k.deps.db, ownerOf(ctx), params.id));
    },
  });
}

function updateRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'patch',
    path: '/webhooks/:id/',
    operationId: 'updateWebhook',
    summary: 'Change a webhook endpoint: url, description, event_types, filters (replaced whole; null = none), enabled',
    description:
      'Give at least one field. `filters` replaces all filters (`null` or `{}` removes them). `enabled: false` disables the endpoint and cancels its pending deliveries; `enabled: true` re-enables it and clears disabled_reason and failing_since (cancelled deliveries stay cancelled: redeliver them one by one). Changes apply to events relayed after the change commits.',
    tags: ['webhooks'],
    security,
    before: k.before,
    params: idParam,
    body: z
      .strictObject({
        url: k.urlSchema.optional(),
        description: descriptionInput.nullable().optional(),
        event_types: eventTypesInput.optional(),
        filters: filtersInput.nullable().optional(),
        enabled: z.boolean().optional(),
      })
      .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one field to change' }),
    responses: { 200: { description: 'the endpoint after the change', schema: endpointSchema }, ...common },
    async handler(ctx, { params, body }) {
      const row = await updateWebhookEndpoint(k.deps.db, ownerOf(ctx), params.id, {
        url: body.url,
        description: body.description,
        eventTypes: body.event_types,
        filters: body.filters,
        enabled: body.enabled,
      });
      ctx.body = toEndpoint(row);
    },
  });
}

function deleteRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'delete',
    path: '/webhooks/:id/',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint and its delivery history',
    tags: ['webhooks'],
    security,
    before: k.before,
    params: idParam,
    responses: { 204: { description: 'deleted' }, ...common },
    async handler(ctx, { params }) {
      await deleteWebhookEndpoint(k.deps.db, ownerOf(ctx), params.id);
      ctx.status = 204;
    },
  });
}

function rotateSecretRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/webhooks/:id/rotate-secret/',
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret; the new one is shown once, the old one keeps signing for 24 h',
    description:
      "For 24 hours after a rotation every delivery carries two signatures in webhook-signature (space-separated: the new secret's, then the old one's), so a receiver can switch to the new secret at any time in that window. Rotating again within the window drops the oldest secret.",
    tags: ['webhooks'],
    security,
    before: k.before,
    params: idParam,
    responses: {
      200: {
        description: 'the new secret, shown only here',
        schema: z.object({ id: z.number().int(), secret: z.string(), previous_secret_expires_at: z.string().meta({ format: 'date-time' }) }).meta({ id: 'WebhookSecretRotated' }),
      },
      ...common,
    },
    async handler(ctx, { params }) {
      const { row, secret } = await rotateWebhookSecret(k.deps, ownerOf(ctx), params.id);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { id: row.id, secret, previous_secret_expires_at: row.previous_secret_expires_at!.toISOString() };
    },
  });
}

function testRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/webhooks/:id/test/',
    operationId: 'testWebhook',
    summary: 'Queue a webhook.test delivery to the endpoint now',
    description:
      'The body is `{type: "webhook.test", timestamp, data: {webhook_endpoint_id, message}}`, signed like every delivery; it is retried like any other. Follow it in GET /webhooks/{id}/deliveries/. A disabled endpoint answers 409 webhook_disabled.',
    tags: ['webhooks'],
    security,
    before: k.before,
    params: idParam,
    responses: { 202: { description: 'queued', schema: z.object({ delivery: deliverySchema }) }, ...common, 409: { description: 'webhook_disabled', schema: errorSchema } },
    async handler(ctx, { params }) {
      const d = await sendTestDelivery(k.deps, ownerOf(ctx), params.id);
      ctx.status = 202;
      ctx.body = { delivery: toDelivery(d) };
    },
  });
}

function deliveriesRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/webhooks/:id/deliveries/',
    operationId: 'listWebhookDeliveries',
    summary: "An endpoint's deliveries, newest first",
    description:
      '`limit` 1-100 (default 20); `before`: a delivery id, to page on (pass `next_before`); `state`: only pending, succeeded, failed or cancelled deliveries. Deliveries are kept as long as events (EVENT_LOG_RETENTION_DAYS).',
    tags: ['webhooks'],
    security,
    before: k.before,
    params: idParam,
    query: z.strictObject({
      before: queryInt({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      limit: queryInt({ min: 1, max: 100, default: 20 }),
      state: z.enum(['pending', 'succeeded', 'failed', 'cancelled']).optional(),
    }),
    responses: {
      200: {
        description: 'deliveries',
        schema: z
          .object({
            results: z.array(deliverySchema),
            next_before: z.number().int().nullable().meta({ description: 'Pass as `before` for the next (older) page; null at the end' }),
            has_more: z.boolean(),
          })
          .meta({ id: 'WebhookDeliveryList' }),
      },
      ...common,
    },
    async handler(ctx, { params, query }) {
      const { rows, hasMore } = await listEndpointDeliveries(k.deps.db, ownerOf(ctx), params.id, { before: query.before, limit: query.limit, state: query.state });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { results: rows.map(toDelivery), next_before: hasMore ? rows[rows.length - 1].id : null, has_more: hasMore };
    },
  });
}

function redeliverRoute(k: Kit): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/webhooks/:id/deliveries/:delivery_id/redeliver/',
    operationId: 'redeliverWebhook',
    summary: 'Send a finished delivery again (same webhook-id), now',
    description:
      'The delivery starts over: pending, due now, attempt count from 0, the same retry schedule. It keeps its id, so its webhook-id is the same: a receiver that already processed it may drop it as a duplicate. A pending delivery answers 409 webhook_delivery_pending; a disabled endpoint 409 webhook_disabled; an event deleted by retention 410 webhook_event_expired.',
    tags: ['webhooks'],
    security,
    before: k.before,
    params: deliveryIdParam,
    responses: {
      202: { description: 'queued', schema: z.object({ delivery: deliverySchema }) },
      ...errorResponses({
        401: 'auth_required',
        404: 'webhook_not_found or webhook_delivery_not_found',
        409: 'webhook_disabled or webhook_delivery_pending',
        410: 'webhook_event_expired',
        503: 'webhooks_not_configured',
      }),
    },
    async handler(ctx, { params }) {
      const d = await redeliver(k.deps, ownerOf(ctx), params.id, params.delivery_id);
      ctx.status = 202;
      ctx.body = { delivery: toDelivery(d) };
    },
  });
}
