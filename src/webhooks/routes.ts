/**
 * Webhook endpoints (issue 16), for authenticated callers: an API key or a signed-in session.
 *  - POST   /webhooks/                                  create (the signing secret is in this answer only)
 *  - GET    /webhooks/                                  the caller's endpoints, paged
 *  - GET    /webhooks/<id>/, PATCH, DELETE              one endpoint
 *  - POST   /webhooks/<id>/rotate-secret/               new secret (once); the old one signs too for 24 h
 *  - POST   /webhooks/<id>/test/                        queue a webhook.test delivery now
 *  - GET    /webhooks/<id>/deliveries/                  its deliveries, newest first
 *  - POST   /webhooks/<id>/deliveries/<delivery_id>/redeliver/
 * Owner: the account when the caller has one (a session, or an API key linked to an account), else
 * the API key itself. Anyone else's endpoint is 404, exactly like one that does not exist.
 * Deliveries themselves are made by the worker (src/webhooks/deliver.ts), fed by the relay.
 */
import net from 'node:net';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { endpointCap, WEBHOOK_ENDPOINT_CAPS } from './rules/caps.js';
import { MAX_ATTEMPTS, retryHorizonMs } from './rules/retry.js';
import { MAX_YAP_TAG_LENGTH, YAP_TAG_PATTERN } from '../articles/index.js';
import { DomainError } from '../platform/errors/index.js';
import { publicEventTypes } from '../platform/events/events.js';
import { requireAuth } from '../identity/index.js';
import { errorResponses, errorSchema } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { isPrivateAddress } from '../platform/safe-fetch.js';
import {
  accountKeyTiers,
  deleteEndpoint,
  getEndpoint,
  insertEndpoint,
  insertTestDelivery,
  listDeliveries,
  listEndpoints,
  rearmDelivery,
  rotateEndpointSecret,
  updateEndpoint,
  type DeliveryRow,
  type EndpointRow,
  type Owner,
} from './queries.js';
import { EXCERPT_BYTES, messageId, wakeEndpoint } from './deliver.js';
import { encryptSecret, generateSecret, webhookKey } from './secrets.js';
import { idParam, tokenAddress } from '../articles/index.js';
import type { Enqueue } from '../../jobs/define.js';
import { isoTimeOrNull } from '../platform/iso-time.js';
import { isoTimestamp } from '../platform/http/schemas.js';

/** Deliveries are signed with the previous secret too for this long after a rotation. */
const ROTATION_GRACE_MS = 24 * 3600_000;
const MAX_FILTER_VALUES = 50;
const dedupe = <T>(a: T[]) => [...new Set(a)];

const tagValue = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.string().min(1).max(MAX_YAP_TAG_LENGTH).regex(YAP_TAG_PATTERN, 'must be a slug: lower-case letters, digits and single hyphens'));
const symbolValue = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9$._-]{1,20}$/, 'must be 1 to 20 of A-Z a-z 0-9 $ . _ -')
  .transform((v) => v.toUpperCase());
const filterList = <T extends z.ZodType<string, any>>(item: T, what: string) =>
  z
    .array(item)
    .min(1, `give at least one ${what}, or leave the key out (no filter on ${what}s)`)
    .max(MAX_FILTER_VALUES, `at most ${MAX_FILTER_VALUES} values`)
    .transform((v) => dedupe(v as string[]))
    .optional();

const filtersInput = z
  .strictObject({
    tags: filterList(tagValue, 'tag'),
    token_addresses: filterList(tokenAddress, 'token address'),
    token_symbols: filterList(symbolValue, 'token symbol'),
  })
  .meta({
    description:
      'An event matches when its article has at least one of the listed values of EACH kind given (tags AND token_addresses AND token_symbols, each an OR list). No key (or {}) = no filter: every event of the chosen types. Events without an article (news.tsunami, a wire item) only reach endpoints without filters. Tags and addresses compare lower-case, symbols case-insensitively.',
  });

const eventTypesInput = z
  .array(z.enum(publicEventTypes))
  .min(1, 'give at least one event type, or leave the key out (all public types)')
  .transform(dedupe)
  .meta({ description: `Public event types to receive: ${publicEventTypes.join(', ')} (default all)` });

const descriptionInput = z.string().trim().max(500, 'must be at most 500 characters');

function endpointUrl(allowPrivate: boolean) {
  return z
    .string()
    .trim()
    .min(1, 'is required')
    .max(2048, 'must be at most 2048 characters')
    .superRefine((v, c) => {
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        c.addIssue({ code: 'custom', message: 'must be an absolute URL' });
        return;
      }
      const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
      if (!schemes.includes(u.protocol)) c.addIssue({ code: 'custom', message: allowPrivate ? 'must be an http:// or https:// URL' : 'must be an https:// URL' });
      if (u.username || u.password) c.addIssue({ code: 'custom', message: 'must not carry credentials' });
      if (u.hash) c.addIssue({ code: 'custom', message: 'must not have a #fragment' });
      const host = u.hostname.replace(/^\[|\]$/g, '');
      if (!allowPrivate && ((net.isIP(host) !== 0 && isPrivateAddress(host)) || host === 'localhost' || host.endsWith('.localhost'))) {
        c.addIssue({ code: 'custom', message: 'must not point to a private, loopback or link-local address' });
      }
    })
    .meta({
      description:
        'Where deliveries are POSTed: https:// (http:// only where OUTBOUND_ALLOW_PRIVATE is set); private, loopback and link-local addresses are refused (also after DNS, at every attempt)',
    });
}

const filtersOut = z
  .object({ tags: z.array(z.string()).nullable(), token_addresses: z.array(z.string()).nullable(), token_symbols: z.array(z.string()).nullable() })
  .meta({ id: 'WebhookFilters', description: 'null = that kind does not filter' });

const endpointSchema = z
  .object({
    id: z.number().int(),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    filters: filtersOut,
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().meta({ description: 'Why it is disabled: by its owner, a 410 Gone, or failing longer than the retry horizon' }),
    disabled_at: isoTimestamp('When it was disabled').nullable(),
    failing_since: isoTimestamp('Start of the current run of failed attempts (null while deliveries succeed); past the retry horizon the endpoint is disabled').nullable(),
    secret_rotated_at: isoTimestamp('Last secret rotation').nullable(),
    previous_secret_expires_at: isoTimestamp('During a rotation: until then deliveries also carry a signature with the previous secret').nullable(),
    created_at: z.string().meta({ format: 'date-time' }),
    updated_at: z.string().meta({ format: 'date-time' }),
  })
  .meta({ id: 'WebhookEndpoint' });

const createdSchema = endpointSchema
  .extend({ secret: z.string().meta({ description: 'The signing secret, `whsec_` + base64 (Standard Webhooks). Shown only in this answer: store it now.' }) })
  .meta({ id: 'WebhookEndpointCreated' });

const deliverySchema = z
  .object({
    id: z.number().int(),
    webhook_id: z.string().meta({ description: 'The webhook-id header of every attempt of this delivery: msg_<id>' }),
    event_id: z.number().int().nullable().meta({ description: 'The event log id (data.event_id); null for webhook.test' }),
    event_type: z.string(),
    state: z
      .enum(['pending', 'succeeded', 'failed', 'cancelled'])
      .meta({ description: 'pending (next_attempt_at), succeeded (2xx), failed (410 or retries used up), cancelled (the endpoint was disabled)' }),
    attempts: z.number().int(),
    last_status: z.number().int().nullable().meta({ description: 'HTTP status of the last attempt; null when it got no response' }),
    last_error: z
      .string()
      .nullable()
      .meta({ description: 'Error class of the last attempt: timeout, connection_error, dns_failed, blocked_address, invalid_url, redirect_not_followed, event_expired' }),
    last_latency_ms: z.number().int().nullable(),
    last_response_excerpt: z
      .string()
      .nullable()
      .meta({ description: `At most the first ${EXCERPT_BYTES} bytes of the last response body` }),
    last_attempt_at: isoTimestamp('Start of the last attempt').nullable(),
    next_attempt_at: isoTimestamp('While pending: when the next attempt is due').nullable(),
    created_at: z.string().meta({ format: 'date-time' }),
    completed_at: isoTimestamp('When it reached its final state').nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

function toEndpoint(r: EndpointRow) {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    event_types: r.event_types,
    filters: { tags: r.filter_tags, token_addresses: r.filter_token_addresses, token_symbols: r.filter_token_symbols },
    enabled: r.enabled,
    disabled_reason: r.disabled_reason,
    disabled_at: isoTimeOrNull(r.disabled_at),
    failing_since: isoTimeOrNull(r.failing_since),
    secret_rotated_at: isoTimeOrNull(r.secret_rotated_at),
    previous_secret_expires_at: r.previous_secret_expires_at && r.previous_secret_expires_at.getTime() > Date.now() ? r.previous_secret_expires_at.toISOString() : null,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

function toDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    webhook_id: messageId(d.id),
    event_id: d.event_id,
    event_type: d.event_type,
    state: d.state,
    attempts: d.attempts,
    last_status: d.last_status,
    last_error: d.last_error,
    last_latency_ms: d.last_latency_ms,
    last_response_excerpt: d.last_response_excerpt,
    last_attempt_at: isoTimeOrNull(d.last_attempt_at),
    next_attempt_at: d.state === 'pending' ? isoTimeOrNull(d.next_attempt_at) : null,
    created_at: d.created_at.toISOString(),
    completed_at: isoTimeOrNull(d.completed_at),
  };
}

const filtersFor = (f: z.output<typeof filtersInput> | null | undefined) => ({
  tags: f?.tags ?? null,
  token_addresses: f?.token_addresses ?? null,
  token_symbols: f?.token_symbols ?? null,
});

const ownerOf = (ctx: Context): Owner => (ctx.state.user ? { kind: 'user', userId: ctx.state.user.id } : { kind: 'api_key', apiKeyId: ctx.state.apiKey!.id });

const common = errorResponses({ 401: 'auth_required: no API key or session', 404: 'webhook_not_found', 503: 'webhooks_not_configured' });

const deliveryIdParam = z.object({
  id: idParam.shape.id,
  delivery_id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int()),
});

export function webhookRoutes(deps: AppDeps): RouteDef[] {
  const key = webhookKey(deps.config);
  // Read when a request needs it (the OpenAPI document is built from routes of deps without a queue).
  const enqueue: Enqueue = (name, payload, opts) => deps.queue.enqueue(name, payload, opts);
  const userGuard = requireAuth('user', deps.db);
  // API keys (linked or not) and sessions; a session's account must still exist (requireAuth).
  const caller: Middleware = async (ctx, next) => {
    if (ctx.state.user) return userGuard(ctx, () => (key ? next() : Promise.reject(notConfigured())));
    if (!ctx.state.apiKey) {
      const p = ctx.state.authProblem;
      throw new DomainError(
        p?.code ?? 'auth_required',
        p?.message ?? 'authentication required: an API key (Authorization: Bearer squid_...) or a signed-in session (access_token cookie or Bearer JWT)',
      );
    }
    if (!key) throw notConfigured();
    await next();
  };
  const notConfigured = () => new DomainError('webhooks_not_configured', 'webhooks are not configured on this deployment (WEBHOOK_SECRET_KEY is unset)');
  const security = [['cookieAuth'], ['bearerAuth']];
  const before = [caller];
  const urlSchema = endpointUrl(deps.config.OUTBOUND_ALLOW_PRIVATE);
  const horizonH = Math.round((retryHorizonMs(deps.config.WEBHOOK_RETRY_BASE_MS) / 3600_000) * 10) / 10;

  async function ownEndpoint(ctx: Context, id: number): Promise<EndpointRow> {
    const row = await getEndpoint(deps.db, ownerOf(ctx), id);
    if (!row) throw new DomainError('webhook_not_found', `no webhook endpoint ${id}`);
    return row;
  }
  const wake = (id: number) =>
    wakeEndpoint(enqueue, id).catch((err: unknown) => deps.log.warn({ endpointId: id, err: (err as Error).message }, 'webhook run not woken (the sweep will)'));

  return [
    defineRoute({
      method: 'post',
      path: '/webhooks/',
      operationId: 'createWebhook',
      summary: 'Create a webhook endpoint; the answer carries its signing secret, once',
      description: [
        'Deliveries follow the Standard Webhooks specification: POST with body `{type, timestamp, data}` (data = the event object exactly as on the stream and GET /api/v1/events/, `event_id` included; timestamp = when the event was recorded) and headers `webhook-id` (msg_<delivery id>, the same on every retry), `webhook-timestamp` (unix seconds of the attempt) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the base64-decoded part of the secret after `whsec_`). Verify with any Standard Webhooks library.',
        `Delivery is at least once and not ordered across retries: dedupe by webhook-id or data.event_id. 2xx is success; any other status, a timeout (${deps.config.WEBHOOK_TIMEOUT_MS / 1000} s), a connection error or a redirect (never followed) is retried with exponential backoff and jitter, ${MAX_ATTEMPTS} attempts over about ${horizonH} h. 410 Gone disables the endpoint at once; failing for longer than that horizon disables it too (disabled_reason says why).`,
        `Caps on endpoints per owner: account ${WEBHOOK_ENDPOINT_CAPS.account} (or the largest cap of its active API keys' tiers), API key not linked to an account: free ${WEBHOOK_ENDPOINT_CAPS.free}, builder ${WEBHOOK_ENDPOINT_CAPS.builder}, enterprise ${WEBHOOK_ENDPOINT_CAPS.enterprise}; beyond: 403 webhook_limit_reached.`,
      ].join('\n\n'),
      tags: ['webhooks'],
      security,
      before,
      body: z.strictObject({
        url: urlSchema,
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
        const owner = ownerOf(ctx);
        const cap =
          owner.kind === 'user'
            ? endpointCap({ kind: 'account', keyTiers: await accountKeyTiers(deps.db, owner.userId) })
            : endpointCap({ kind: 'api_key', tier: ctx.state.apiKey!.tier });
        const secret = generateSecret();
        const r = await insertEndpoint(
          deps.db,
          owner,
          {
            url: body.url,
            description: body.description || null,
            eventTypes: body.event_types ?? [...publicEventTypes],
            filters: filtersFor(body.filters),
            secretEnc: encryptSecret(key!, secret),
          },
          cap,
        );
        if (!r.ok)
          throw new DomainError('webhook_limit_reached', `at most ${cap} webhook endpoints for this ${owner.kind === 'user' ? 'account' : 'API key'}; delete one first`, {
            limit: cap,
            count: r.count,
          });
        ctx.status = 201;
        ctx.set('Location', `/api/v1/webhooks/${r.row.id}/`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { ...toEndpoint(r.row), secret };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/',
      operationId: 'listWebhooks',
      summary: "The caller's webhook endpoints, oldest first",
      description: '`page` 1-10000 (default 1), `per_page` 1-100 (default 20). A page past the end is empty.',
      tags: ['webhooks'],
      security,
      before,
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
        const { rows, total } = await listEndpoints(deps.db, ownerOf(ctx), page, perPage);
        const totalPages = Math.ceil(total / perPage);
        ctx.body = {
          results: rows.map(toEndpoint),
          pagination: { page, per_page: perPage, total, total_pages: totalPages, has_next: page < totalPages, has_previous: page > 1 && totalPages > 0 },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:id/',
      operationId: 'getWebhook',
      summary: 'One webhook endpoint (never its secret)',
      tags: ['webhooks'],
      security,
      before,
      params: idParam,
      responses: { 200: { description: 'the endpoint', schema: endpointSchema }, ...common },
      async handler(ctx, { params }) {
        ctx.body = toEndpoint(await ownEndpoint(ctx, params.id));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/webhooks/:id/',
      operationId: 'updateWebhook',
      summary: 'Change a webhook endpoint: url, description, event_types, filters (replaced whole; null = none), enabled',
      description:
        'Give at least one field. `filters` replaces all filters (`null` or `{}` removes them). `enabled: false` disables the endpoint and cancels its pending deliveries; `enabled: true` re-enables it and clears disabled_reason and failing_since (cancelled deliveries stay cancelled: redeliver them one by one). Changes apply to events relayed after the change commits.',
      tags: ['webhooks'],
      security,
      before,
      params: idParam,
      body: z
        .strictObject({
          url: urlSchema.optional(),
          description: descriptionInput.nullable().optional(),
          event_types: eventTypesInput.optional(),
          filters: filtersInput.nullable().optional(),
          enabled: z.boolean().optional(),
        })
        .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one field to change' }),
      responses: { 200: { description: 'the endpoint after the change', schema: endpointSchema }, ...common },
      async handler(ctx, { params, body }) {
        const row = await updateEndpoint(deps.db, ownerOf(ctx), params.id, {
          url: body.url,
          description: body.description === undefined ? undefined : body.description || null,
          eventTypes: body.event_types,
          filters: body.filters === undefined ? undefined : filtersFor(body.filters),
          enabled: body.enabled,
        });
        if (!row) throw new DomainError('webhook_not_found', `no webhook endpoint ${params.id}`);
        ctx.body = toEndpoint(row);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/webhooks/:id/',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook endpoint and its delivery history',
      tags: ['webhooks'],
      security,
      before,
      params: idParam,
      responses: { 204: { description: 'deleted' }, ...common },
      async handler(ctx, { params }) {
        if (!(await deleteEndpoint(deps.db, ownerOf(ctx), params.id))) throw new DomainError('webhook_not_found', `no webhook endpoint ${params.id}`);
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:id/rotate-secret/',
      operationId: 'rotateWebhookSecret',
      summary: 'Replace the signing secret; the new one is shown once, the old one keeps signing for 24 h',
      description:
        "For 24 hours after a rotation every delivery carries two signatures in webhook-signature (space-separated: the new secret's, then the old one's), so a receiver can switch to the new secret at any time in that window. Rotating again within the window drops the oldest secret.",
      tags: ['webhooks'],
      security,
      before,
      params: idParam,
      responses: {
        200: {
          description: 'the new secret, shown only here',
          schema: z.object({ id: z.number().int(), secret: z.string(), previous_secret_expires_at: z.string().meta({ format: 'date-time' }) }).meta({ id: 'WebhookSecretRotated' }),
        },
        ...common,
      },
      async handler(ctx, { params }) {
        const secret = generateSecret();
        const row = await rotateEndpointSecret(deps.db, ownerOf(ctx), params.id, encryptSecret(key!, secret), ROTATION_GRACE_MS);
        if (!row) throw new DomainError('webhook_not_found', `no webhook endpoint ${params.id}`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { id: row.id, secret, previous_secret_expires_at: row.previous_secret_expires_at!.toISOString() };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:id/test/',
      operationId: 'testWebhook',
      summary: 'Queue a webhook.test delivery to the endpoint now',
      description:
        'The body is `{type: "webhook.test", timestamp, data: {webhook_endpoint_id, message}}`, signed like every delivery; it is retried like any other. Follow it in GET /webhooks/{id}/deliveries/. A disabled endpoint answers 409 webhook_disabled.',
      tags: ['webhooks'],
      security,
      before,
      params: idParam,
      responses: { 202: { description: 'queued', schema: z.object({ delivery: deliverySchema }) }, ...common, 409: { description: 'webhook_disabled', schema: errorSchema } },
      async handler(ctx, { params }) {
        const ep = await ownEndpoint(ctx, params.id);
        if (!ep.enabled)
          throw new DomainError('webhook_disabled', `webhook endpoint ${ep.id} is disabled (${ep.disabled_reason ?? 'disabled'}); re-enable it with PATCH {"enabled": true}`);
        const d = await insertTestDelivery(
          deps.db,
          ep.id,
          JSON.stringify({ webhook_endpoint_id: ep.id, message: 'Test delivery from Squid News: your endpoint receives and verifies webhooks.' }),
        );
        await wake(ep.id);
        ctx.status = 202;
        ctx.body = { delivery: toDelivery(d) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhooks/:id/deliveries/',
      operationId: 'listWebhookDeliveries',
      summary: "An endpoint's deliveries, newest first",
      description:
        '`limit` 1-100 (default 20); `before`: a delivery id, to page on (pass `next_before`); `state`: only pending, succeeded, failed or cancelled deliveries. Deliveries are kept as long as events (EVENT_LOG_RETENTION_DAYS).',
      tags: ['webhooks'],
      security,
      before,
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
        await ownEndpoint(ctx, params.id);
        const limit = query.limit;
        const rows = await listDeliveries(deps.db, params.id, { before: query.before, limit: limit + 1, state: query.state });
        const page = rows.slice(0, limit);
        const hasMore = rows.length > limit;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { results: page.map(toDelivery), next_before: hasMore ? page[page.length - 1].id : null, has_more: hasMore };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhooks/:id/deliveries/:delivery_id/redeliver/',
      operationId: 'redeliverWebhook',
      summary: 'Send a finished delivery again (same webhook-id), now',
      description:
        'The delivery starts over: pending, due now, attempt count from 0, the same retry schedule. It keeps its id, so its webhook-id is the same: a receiver that already processed it may drop it as a duplicate. A pending delivery answers 409 webhook_delivery_pending; a disabled endpoint 409 webhook_disabled; an event deleted by retention 410 webhook_event_expired.',
      tags: ['webhooks'],
      security,
      before,
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
        const ep = await ownEndpoint(ctx, params.id);
        if (!ep.enabled)
          throw new DomainError('webhook_disabled', `webhook endpoint ${ep.id} is disabled (${ep.disabled_reason ?? 'disabled'}); re-enable it with PATCH {"enabled": true}`);
        const r = await rearmDelivery(deps.db, ep.id, params.delivery_id);
        if (!r.ok && r.reason === 'not_found') throw new DomainError('webhook_delivery_not_found', `no delivery ${params.delivery_id} on webhook endpoint ${ep.id}`);
        if (!r.ok && r.reason === 'pending') {
          throw new DomainError('webhook_delivery_pending', `delivery ${params.delivery_id} is still pending; its next attempt is at ${isoTimeOrNull(r.row!.next_attempt_at)}`, {
            next_attempt_at: isoTimeOrNull(r.row!.next_attempt_at),
          });
        }
        if (!r.ok) throw new DomainError('webhook_event_expired', `the event of delivery ${params.delivery_id} was deleted by retention; it cannot be sent again`);
        await wake(ep.id);
        ctx.status = 202;
        ctx.body = { delivery: toDelivery(r.row) };
      },
    }),
  ];
}
