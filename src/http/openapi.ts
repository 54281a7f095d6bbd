/**
 * The OpenAPI 3.1 document, built from the same RouteDefs that validate requests.
 * info.version is the document's own version (1.4.0); the API version is 1.2 (spec: Versioning).
 */
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { httpErrorCodes } from '../errors.js';
import type { RouteDef } from './route.js';

export const API_VERSION = '1.2';
export const DOCUMENT_VERSION = '1.4.0';
export const API_PREFIX = '/api/v1';

export const errorSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable code, e.g. validation_failed' }),
      message: z.string().meta({ description: 'Human-readable explanation' }),
      details: z
        .unknown()
        .meta({ description: 'null, or structured detail: {fields: [{path, code, message}]} for validation_failed, {request_id} for 5xx' }),
    }),
  })
  .meta({ id: 'Error' });

function openapiPath(def: RouteDef): string {
  const full = (def.mount === 'root' ? '' : API_PREFIX) + def.path;
  return full.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function buildOpenApi(defs: RouteDef[], opts: { publicBaseUrl: string; extraErrorCodes?: Record<string, string> }) {
  const paths: ZodOpenApiPathsObject = {};
  for (const def of defs) {
    const responses: Record<string, any> = {};
    for (const [status, r] of Object.entries(def.responses)) {
      responses[status] = {
        description: r.description,
        // A header object needs a schema; headers declared with a description only are strings.
        headers: r.headers
          ? Object.fromEntries(Object.entries(r.headers).map(([h, v]) => [h, { description: v.description, schema: v.schema ?? z.string() }]))
          : undefined,
        content: r.schema ? { [r.contentType ?? 'application/json']: { schema: r.schema } } : undefined,
      };
    }
    const errorContent = { 'application/json': { schema: errorSchema } };
    if (def.auth && def.auth !== 'public') {
      responses['401'] ??= { description: 'Not authenticated (auth_required, token_expired, token_invalid, api_key_invalid, api_key_revoked)', content: errorContent };
      responses['403'] ??= {
        description: def.auth === 'user' ? 'Cross-site check failed (csrf_origin_mismatch) or API key not linked to an account (account_required)' : `Missing role (${def.auth}_required) or csrf_origin_mismatch`,
        content: errorContent,
      };
    }
    if (def.rateLimit || (def.mount ?? 'api') === 'api') {
      responses['429'] ??= {
        description: def.rateLimit
          ? `Rate limited: ${def.rateLimit.points} requests per ${def.rateLimit.durationS} s per IP (rate_limited), or the daily quota (daily_quota_exceeded)`
          : 'Daily quota exceeded (daily_quota_exceeded)',
        content: errorContent,
      };
    }
    if (def.params || def.query || def.body) {
      responses['400'] ??= { description: 'Validation failed (code validation_failed) or malformed JSON (malformed_json)', content: { 'application/json': { schema: errorSchema } } };
    }
    const op: ZodOpenApiOperationObject = {
      operationId: def.operationId,
      summary: def.summary,
      description: def.description,
      tags: def.tags,
      security: (def.security ?? (def.auth && def.auth !== 'public' ? [['cookieAuth'], ['bearerAuth']] : undefined))?.map((names) =>
        Object.fromEntries(names.map((n) => [n, []])),
      ),
      requestParams: Object.fromEntries(
        Object.entries({ path: def.params, query: def.query }).filter(([, v]) => v !== undefined),
      ) as ZodOpenApiOperationObject['requestParams'],
      requestBody: def.body
        ? {
            required: true,
            content: Object.fromEntries((def.bodyTypes ?? ['application/json']).map((t) => [t, { schema: def.body as never }])),
          }
        : undefined,
      responses: responses as ZodOpenApiOperationObject['responses'],
    };
    const p = openapiPath(def);
    paths[p] = { ...(paths[p] ?? {}), [def.method]: op };
  }
  const codes = { ...httpErrorCodes, ...(opts.extraErrorCodes ?? {}) };
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Squid News API',
      version: DOCUMENT_VERSION,
      description: [
        `API version ${API_VERSION}. Every REST path carries the version segment ${API_PREFIX}; host-root pages and the WebSocket stream /ws/news/ do not.`,
        '',
        'Every 4xx/5xx response has the body {"error": {"code", "message", "details"}}. Error codes:',
        ...Object.entries(codes).map(([c, d]) => `- \`${c}\`: ${d}`),
      ].join('\n'),
    },
    'x-api-version': API_VERSION,
    servers: [{ url: opts.publicBaseUrl }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        cookieAuth: { type: 'apiKey', in: 'cookie', name: 'access_token', description: 'JWT from POST /api/v1/wallet/verify/' },
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'The access-token JWT or an API key (squid_...)' },
      },
    },
  } as never);
}
