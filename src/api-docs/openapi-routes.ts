import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { API_VERSION, buildOpenApi } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { SERVICE_VERSION } from '../platform/version.js';

export function metaRoutes(deps: AppDeps, all: () => RouteDef[]): RouteDef[] {
  let cached: unknown;
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: `This OpenAPI 3.1 document (info.version ${SERVICE_VERSION}, API version ${API_VERSION})`,
      tags: ['meta'],
      unmetered: true,
      responses: { 200: { description: 'the document', schema: z.record(z.string(), z.unknown()) } },
      handler(ctx) {
        cached ??= buildOpenApi(all(), { publicBaseUrl: deps.config.PUBLIC_BASE_URL });
        ctx.body = cached;
      },
    }),
  ];
}
