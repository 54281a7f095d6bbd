/**
 * The OpenAPI 3.1 document, built from the same RouteDefs that validate requests.
 * info.version is the service version and x-api-version the API version (src/platform/version.ts).
 */
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { errorDescriptions } from '../errors/codes.js';
import type { RouteDef } from './route.js';

import { API_VERSION, SERVICE_VERSION } from '../version.js';

export { API_VERSION };
export const API_PREFIX = '/api/v1';

export const errorSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'Stable machine-readable code, e.g. validation_failed' }),
      message: z.string().meta({ description: 'Human-readable explanation' }),
      details: z.unknown().meta({ description: 'null, or structured detail: {fields: [{path, code, message}]} for validation_failed, {request_id} for 5xx' }),
    }),
  })
  .meta({ id: 'Error' });

/** A route's error responses from {status: description}: each answers with the Error schema. */
export function errorResponses(d: Record<number, string>) {
  return Object.fromEntries(Object.entries(d).map(([s, description]) => [s, { description, schema: errorSchema }]));
}

function openapiPath(def: RouteDef): string {
  const full = (def.mount === 'root' ? '' : API_PREFIX) + def.path;
  return full.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

const errorContent = { 'application/json': { schema: errorSchema } };
const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/**
 * The error responses every route of its kind can answer with, besides those its definition lists
 * (a definition's own entry wins): they come from the shared middleware (errorMiddleware, body
 * parser, quota and rate limits, auth guards), not from the handler.
 */
function sharedErrorResponses(def: RouteDef): Record<string, { description: string; content: typeof errorContent }> {
  const out: Record<string, { description: string; content: typeof errorContent }> = {};
  const write = WRITE_METHODS.has(def.method);
  if (def.params || def.query || def.body || write) {
    out['400'] = {
      description: write
        ? 'Validation failed (validation_failed), malformed JSON (malformed_json), a body that does not decompress (bad_content_encoding) or a value the database refuses (invalid_value)'
        : 'Validation failed (validation_failed) or a value the database refuses (invalid_value)',
      content: errorContent,
    };
  }
  if (def.auth && def.auth !== 'public') {
    out['401'] = {
      description: 'Not authenticated (auth_required, authorization_malformed, token_expired, token_invalid, account_not_found, api_key_invalid, api_key_revoked)',
      content: errorContent,
    };
    out['403'] = {
      description:
        def.auth === 'user'
          ? 'Cross-site check failed (csrf_origin_mismatch) or API key not linked to an account (account_required)'
          : `Missing role (${def.auth}_required), API key not linked to an account (account_required) or csrf_origin_mismatch`,
      content: errorContent,
    };
  } else {
    // Credentials are optional here, but one that is presented must be valid (src/identity/auth-middleware.ts).
    out['401'] = {
      description:
        'An Authorization header that is malformed (authorization_malformed) or carries an invalid, expired or revoked credential (token_invalid, token_expired, api_key_invalid, api_key_revoked)',
      content: errorContent,
    };
    if (write) out['403'] = { description: 'A cookie-authenticated write without the trusted Origin (csrf_origin_mismatch)', content: errorContent };
  }
  if (write) {
    out['413'] = { description: 'The body exceeds BODY_LIMIT_BYTES (payload_too_large)', content: errorContent };
    out['415'] = { description: 'The body has a content type this endpoint does not accept (unsupported_media_type)', content: errorContent };
  }
  if (def.rateLimit || ((def.mount ?? 'api') === 'api' && !def.unmetered)) {
    out['429'] = {
      description: def.rateLimit
        ? `Rate limited: ${def.rateLimit.points} requests per ${def.rateLimit.durationS} s per IP (rate_limited), or the daily quota (daily_quota_exceeded)`
        : 'Daily quota exceeded (daily_quota_exceeded)',
      content: errorContent,
    };
  }
  out['500'] = { description: 'An unexpected failure (internal_error); details.request_id identifies it', content: errorContent };
  out['503'] = { description: 'PostgreSQL or Redis is unreachable (service_unavailable); Retry-After says when to retry', content: errorContent };
  return out;
}

/**
 * Query strings and path segments are strings on the wire; the routes parse integers from them
 * (string -> regex -> Number -> int pipe). Render such a schema as the integer it stands for, with the
 * bounds of its output, so generated clients take numbers. The server still accepts the same text.
 */
function renderParsedIntegers({ jsonSchema, zodSchema, io }: { jsonSchema: any; zodSchema: any; io: 'input' | 'output' }): void {
  if (io !== 'input') return;
  const type = (s: any): string | undefined => s?._zod?.def?.type;
  // The number a schema outputs, looking through optional/default wrappers and value-preserving transforms.
  const intOut = (s: any): any => {
    const d = s?._zod?.def;
    if (d?.type === 'number') return s;
    if (d?.type === 'pipe') return type(d.out) === 'transform' ? intOut(d.in) : intOut(d.out);
    if (d?.type === 'optional' || d?.type === 'default' || d?.type === 'nullable') return intOut(d.innerType);
    return undefined;
  };
  const strIn = (s: any): boolean => {
    const d = s?._zod?.def;
    if (d?.type === 'string') return true;
    if (d?.type === 'pipe') return strIn(d.in);
    if (d?.type === 'optional' || d?.type === 'default' || d?.type === 'nullable') return strIn(d.innerType);
    return false;
  };
  if (type(zodSchema) !== 'pipe' && type(zodSchema) !== 'optional') return;
  const out = intOut(zodSchema);
  if (!out || !strIn(zodSchema) || jsonSchema.type !== 'string') return;
  const rendered = z.toJSONSchema(out, { target: 'draft-2020-12' }) as { type?: string; minimum?: number; maximum?: number };
  if (rendered.type !== 'integer') return;
  // A pattern starting ^[1-9] admits no zero or negative numbers.
  const positive = typeof jsonSchema.pattern === 'string' && jsonSchema.pattern.startsWith('^[1-9]');
  for (const k of Object.keys(jsonSchema)) if (!['description', 'default', 'examples', 'deprecated'].includes(k)) delete jsonSchema[k];
  jsonSchema.type = 'integer';
  const lo = Math.max(rendered.minimum ?? Number.MIN_SAFE_INTEGER, positive ? 1 : Number.MIN_SAFE_INTEGER);
  jsonSchema.minimum = lo;
  jsonSchema.maximum = rendered.maximum ?? Number.MAX_SAFE_INTEGER;
}

/** The responses of an operation: its own, and the shared middleware's error statuses. */
function operationResponses(def: RouteDef): Record<string, any> {
  const responses: Record<string, any> = {};
  for (const [status, r] of Object.entries(def.responses)) {
    const error = Number(status) >= 400;
    responses[status] = {
      description: r.description,
      // Header schemas go through zod-openapi as an object of zod schemas (rendered as JSON Schema);
      // headers declared with a description only are strings.
      headers: r.headers
        ? z.object(
            Object.fromEntries(
              Object.entries(r.headers).map(([h, v]) => {
                const schema = (v.schema ?? z.string()).meta({ description: v.description });
                return [h, v.required ? schema : schema.optional()];
              }),
            ),
          )
        : undefined,
      // An error status declared without a body schema has the common error body.
      content: r.schema
        ? {
            [r.contentType ?? 'application/json']: { schema: r.schema },
            ...Object.fromEntries(Object.entries(r.alternatives ?? {}).map(([t, schema]) => [t, { schema }])),
          }
        : error
          ? errorContent
          : undefined,
    };
  }
  // A status both the route and the shared middleware can answer: one response, both descriptions.
  for (const [status, r] of Object.entries(sharedErrorResponses(def))) {
    const own = responses[status];
    if (!own) responses[status] = r;
    else if (!own.description.includes(r.description)) own.description = `${own.description}; or ${r.description}`;
  }
  return responses;
}

export function buildOpenApi(defs: RouteDef[], opts: { publicBaseUrl: string }) {
  const paths: ZodOpenApiPathsObject = {};
  for (const def of defs) {
    const responses = operationResponses(def);
    const op: ZodOpenApiOperationObject = {
      operationId: def.operationId,
      summary: def.summary,
      description: def.description,
      tags: def.tags,
      security: (def.security ?? (def.auth && def.auth !== 'public' ? [['cookieAuth'], ['bearerAuth']] : undefined))?.map((names) => Object.fromEntries(names.map((n) => [n, []]))),
      requestParams: Object.fromEntries(Object.entries({ path: def.params, query: def.query }).filter(([, v]) => v !== undefined)) as ZodOpenApiOperationObject['requestParams'],
      requestBody: def.body
        ? {
            required: true,
            content: Object.fromEntries((def.bodyTypes ?? ['application/json']).map((t) => [t, { schema: def.body as never }])),
          }
        : undefined,
      responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))) as ZodOpenApiOperationObject['responses'],
    };
    const p = openapiPath(def);
    paths[p] = { ...(paths[p] ?? {}), [def.method]: op };
  }
  // Every registered code with its meaning (src/platform/errors/codes.ts).
  const codes = errorDescriptions;
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Squid News API',
        version: SERVICE_VERSION,
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
    } as never,
    { override: renderParsedIntegers as never },
  );
}
