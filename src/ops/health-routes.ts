import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { pingDatabase } from '../platform/health.js';

async function probe(fn: () => Promise<unknown>, timeoutMs: number): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([fn(), new Promise((_, rej) => (timer = setTimeout(() => rej(new Error('timeout')), timeoutMs)))]);
    return 'ok';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

const readiness = z.object({ status: z.enum(['ok', 'unavailable']), postgres: z.enum(['ok', 'down']), redis: z.enum(['ok', 'down']) });

export function healthRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      mount: 'root',
      operationId: 'healthz',
      summary: 'Liveness: the process is up (touches no backing service)',
      tags: ['operations'],
      responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } },
      handler(ctx) {
        ctx.body = { status: 'ok' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      mount: 'root',
      operationId: 'readyz',
      summary: 'Readiness: PostgreSQL and Redis both answer within 2 s',
      tags: ['operations'],
      responses: {
        200: { description: 'ready', schema: readiness },
        503: { description: 'a backing service is down', schema: readiness },
      },
      async handler(ctx) {
        const [postgres, redis] = await Promise.all([probe(() => pingDatabase(deps.db), 2000), probe(() => deps.redis.ping(), 2000)]);
        const ok = postgres === 'ok' && redis === 'ok';
        ctx.status = ok ? 200 : 503;
        ctx.body = { status: ok ? 'ok' : 'unavailable', postgres, redis };
      },
    }),
  ];
}
