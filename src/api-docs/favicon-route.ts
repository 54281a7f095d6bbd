import { z } from 'zod';
import { defineRoute, type RouteDef } from '../platform/http/route.js';

/** A week: browsers ask for /favicon.ico on every page of the docs and the console otherwise. */
const FAVICON_CACHE = 'public, max-age=604800, immutable';

/** `GET /favicon.ico`: 204 (the service has no icon) with a long cache, so browsers stop asking. */
export function faviconRoute(): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/favicon.ico',
    mount: 'root',
    operationId: 'getFavicon',
    summary: 'No icon: 204 with a week-long cache, so browsers do not ask again',
    tags: ['meta'],
    responses: { 204: { description: 'no icon', headers: { 'Cache-Control': { description: FAVICON_CACHE, schema: z.string() } } } },
    handler(ctx) {
      ctx.set('Cache-Control', FAVICON_CACHE);
      ctx.status = 204;
    },
  });
}
