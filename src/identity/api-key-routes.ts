/**
 * API keys (spec: Authentication 2). Host-root HTML pages:
 *  - GET  /api-key/signup/               the onboarding form (name required; email, use case optional)
 *  - POST /api-key/signup/               creates a free-tier key and renders its dashboard with the raw key, once
 *  - GET  /api-key/dashboard/<key_id>/   tier, masked key, today's usage vs quota, 30-day chart; never the raw key
 * JSON endpoints authenticated by the key itself (Authorization: Bearer squid_...):
 *  - GET  /api/v1/api-keys/me/       the key's tier, quota and today's usage
 *  - POST /api/v1/api-keys/rotate/   new secret for the same key id (old secret stops working at once)
 *  - POST /api/v1/api-keys/revoke/   revoke the key (then every request with it is 401 api_key_revoked)
 * A key created while signed in with a wallet (access_token cookie) is linked to that account and can
 * then act for it (submit, comment, vote); an unlinked key reads, and pays for the intel report by tier.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { maskKey, tierDailyQuota } from './api-keys.js';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { esc, page, usageChart } from '../platform/http/html.js';
import { Limits, secondsUntilUtcMidnight } from '../platform/http/rate-limit.js';
import { errorSchema } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { getApiKey } from './api-key-queries.js';
import { createApiKey, revokeKey, rotateKey } from './service.js';

const signupForm = z.object({
  name: z.string().trim().min(1, 'Name is required').max(100, 'Name is at most 100 characters'),
  email: z
    .string()
    .trim()
    .max(200)
    .optional()
    .transform((v) => (v ? v : undefined))
    .pipe(z.email('Email must be a valid address').optional()),
  use_case: z.string().trim().max(500, 'Use case is at most 500 characters').optional(),
});

function formHtml(values: Record<string, unknown> = {}, errors: string[] = []): string {
  return page(
    'Get an API key — Squid News',
    `<h1>Get an API key</h1>
<p>Free tier: 1,000 requests per day. Builder (50,000 per day, includes the intel report) and Enterprise keys are set up by our team.</p>
${errors.length ? `<ul class="error" role="alert">${errors.map((e) => `<li>${esc(e)}</li>`).join('')}</ul>` : ''}
<form method="post" action="/api-key/signup/">
  <label for="name">Name or project</label>
  <input id="name" name="name" required maxlength="100" value="${esc(values.name)}">
  <label for="email">Email (optional)</label>
  <input id="email" name="email" type="email" maxlength="200" value="${esc(values.email)}">
  <label for="use_case">What will you build? (optional)</label>
  <textarea id="use_case" name="use_case" maxlength="500" rows="3">${esc(values.use_case)}</textarea>
  <button type="submit">Create key</button>
</form>`,
  );
}

async function dashboardHtml(deps: AppDeps, limits: Limits, keyId: string, rawKeyOnce?: string): Promise<string | null> {
  const k = await getApiKey(deps.db, keyId);
  if (!k) return null;
  const usage = await limits.keyUsage(k.id, 30);
  const today = usage[usage.length - 1].count;
  const quota = tierDailyQuota[k.tier];
  const status = k.revoked_at ? `<strong class="error">revoked</strong> ${esc(k.revoked_at.toISOString())}` : 'active';
  return page(
    'API key dashboard — Squid News',
    `<h1>API key dashboard</h1>
${
  rawKeyOnce
    ? `<div class="warn" role="status"><p><strong>Copy your key now. It is shown only this once;</strong> we store only a hash of it.</p>
<p class="key" id="raw-key">${esc(rawKeyOnce)}</p>
<p>Bookmark this page: <a href="/api-key/dashboard/${esc(k.id)}/">/api-key/dashboard/${esc(k.id)}/</a></p></div>`
    : ''
}
<table>
<tr><th>Name</th><td>${esc(k.name)}</td></tr>
<tr><th>Key</th><td class="key" id="masked-key">${esc(maskKey(k.key_first4, k.key_last4))}</td></tr>
<tr><th>Tier</th><td id="tier">${esc(k.tier)}</td></tr>
<tr><th>Status</th><td>${status}</td></tr>
<tr><th>Today (UTC)</th><td id="usage-today">${today} of ${quota === null ? 'unlimited' : quota.toLocaleString('en-US')} requests</td></tr>
<tr><th>Resets in</th><td>${Math.ceil(secondsUntilUtcMidnight() / 60)} minutes (00:00 UTC)</td></tr>
</table>
<h2>Requests per day, last 30 days</h2>
${usageChart(usage)}
<h2>Use it</h2>
<p>Send <code>Authorization: Bearer &lt;your key&gt;</code>. Rotate with <code>POST /api/v1/api-keys/rotate/</code>, revoke with <code>POST /api/v1/api-keys/revoke/</code>, both authenticated by the key itself.</p>`,
  );
}

function requireKey(ctx: Context) {
  const key = ctx.state.apiKey;
  if (!key) throw new DomainError('api_key_required', 'authenticate with Authorization: Bearer <API key>');
  return key;
}

const keyInfo = z
  .object({
    key_id: z.string(),
    tier: z.enum(['free', 'builder', 'enterprise']),
    daily_quota: z.number().int().nullable().meta({ description: 'null = unlimited' }),
    used_today: z.number().int(),
    resets_in_seconds: z.number().int(),
    dashboard_url: z.string(),
  })
  .meta({ id: 'ApiKeyInfo' });

/** What the key routes share: the rate limiter's usage counters, the HTML response, the dashboard URL. */
interface Kit {
  deps: AppDeps;
  limits: Limits;
  dashboardUrl: (id: string) => string;
}

const html = { description: 'HTML page', schema: z.string(), contentType: 'text/html' };

const keyAuthResponses = { 401: { description: 'api_key_required (no API key; a session is not enough), api_key_invalid, api_key_revoked' } };

function signupFormRoute(): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/api-key/signup/',
    mount: 'root',
    operationId: 'apiKeySignupForm',
    summary: 'The API-key onboarding form (HTML)',
    tags: ['api keys'],
    responses: { 200: html },
    handler(ctx) {
      ctx.type = 'html';
      ctx.body = formHtml();
    },
  });
}

function signupRoute({ deps, limits }: Kit): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/api-key/signup/',
    mount: 'root',
    operationId: 'apiKeySignup',
    summary: 'Create a free-tier key; responds with its dashboard showing the raw key once (HTML)',
    description:
      'Form fields (application/x-www-form-urlencoded): name (required, <= 100), email (optional), use_case (optional, <= 500). Invalid input re-renders the form with status 400. At most API_KEY_SIGNUPS_PER_HOUR (5) sign-ups an hour per client address, and per account when signed in: over either, 429 rate_limited with Retry-After. A free key that no account holds and that is never used is deleted API_KEY_UNUSED_DAYS (7) days after its sign-up.',
    tags: ['api keys'],
    bodyTypes: ['application/x-www-form-urlencoded'],
    // Free keys each carry their own daily quota: unmetered sign-ups would multiply the anonymous quota.
    rateLimit: { key: 'api-key-signup', points: deps.config.API_KEY_SIGNUPS_PER_HOUR, durationS: 3600 },
    responses: {
      201: html,
      // The form re-rendered with the problem; a body the parser refuses (malformed JSON...) gets the error body.
      400: {
        ...html,
        description: 'HTML page: the form with the problem; or the JSON error body for a body that cannot be parsed',
        alternatives: { 'application/json': errorSchema },
      },
    },
    async handler(ctx) {
      const input = (ctx.request.body ?? {}) as Record<string, unknown>;
      const parsed = signupForm.safeParse(input);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      if (!parsed.success) {
        ctx.status = 400;
        ctx.body = formHtml(
          input,
          parsed.error.issues.map((i) => i.message),
        );
        return;
      }
      const key = await createApiKey(deps, {
        name: parsed.data.name,
        email: parsed.data.email ?? null,
        useCase: parsed.data.use_case ?? null,
        userId: ctx.state.user?.id ?? null,
      });
      ctx.status = 201;
      ctx.body = await dashboardHtml(deps, limits, key.id, key.raw);
    },
  });
}

function dashboardRoute({ deps, limits }: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/api-key/dashboard/:key_id/',
    mount: 'root',
    operationId: 'apiKeyDashboard',
    summary: "A key's dashboard: tier, masked key, usage today and for 30 days (HTML; never the raw key)",
    tags: ['api keys'],
    params: z.object({ key_id: z.string().regex(/^k_[A-Za-z0-9_-]{16}$/, 'not a key id') }),
    responses: { 200: html, 404: html },
    async handler(ctx, { params }) {
      const body = await dashboardHtml(deps, limits, params.key_id);
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      if (!body) {
        ctx.status = 404;
        ctx.body = page('Not found', '<h1>No such key</h1>');
        return;
      }
      ctx.body = body;
    },
  });
}

function keyInfoRoute({ limits, dashboardUrl }: Kit): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/api-keys/me/',
    operationId: 'getApiKeyInfo',
    summary: "The calling key's tier, daily quota and today's usage",
    tags: ['api keys'],
    security: [['bearerAuth']],
    responses: {
      ...keyAuthResponses,
      200: { description: 'key info', schema: keyInfo },
    },
    async handler(ctx) {
      const key = requireKey(ctx);
      const usage = await limits.keyUsage(key.id, 1);
      ctx.body = {
        key_id: key.id,
        tier: key.tier,
        daily_quota: tierDailyQuota[key.tier],
        used_today: usage[0].count,
        resets_in_seconds: secondsUntilUtcMidnight(),
        dashboard_url: dashboardUrl(key.id),
      };
    },
  });
}

function rotateRoute({ deps, dashboardUrl }: Kit): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/api-keys/rotate/',
    operationId: 'rotateApiKey',
    summary: 'Replace the calling key with a new secret (same id, tier and usage); the old secret stops working at once',
    tags: ['api keys'],
    security: [['bearerAuth']],
    responses: {
      ...keyAuthResponses,
      200: { description: 'the new key, shown once', schema: z.object({ key_id: z.string(), api_key: z.string(), dashboard_url: z.string() }) },
    },
    async handler(ctx) {
      const key = requireKey(ctx);
      const raw = await rotateKey(deps, key.id);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { key_id: key.id, api_key: raw, dashboard_url: dashboardUrl(key.id) };
    },
  });
}

function revokeRoute({ deps }: Kit): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/api-keys/revoke/',
    operationId: 'revokeApiKey',
    summary: 'Revoke the calling key',
    tags: ['api keys'],
    security: [['bearerAuth']],
    responses: {
      ...keyAuthResponses,
      200: { description: 'revoked', schema: z.object({ key_id: z.string(), revoked: z.literal(true) }) },
    },
    async handler(ctx) {
      const key = requireKey(ctx);
      await revokeKey(deps, key.id);
      ctx.body = { key_id: key.id, revoked: true };
    },
  });
}

export function apiKeyRoutes(deps: AppDeps): RouteDef[] {
  const kit: Kit = {
    deps,
    limits: new Limits(deps.redis, deps.config.QUEUE_PREFIX, deps.config),
    dashboardUrl: (id) => new URL(`/api-key/dashboard/${id}/`, deps.config.PUBLIC_BASE_URL).toString(),
  };
  return [signupFormRoute(), signupRoute(kit), dashboardRoute(kit), keyInfoRoute(kit), rotateRoute(kit), revokeRoute(kit)];
}
