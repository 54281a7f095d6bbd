/**
 * The staff queue dashboard at /admin/queues (bull-board through its Koa adapter). bull-board has no
 * auth of its own, so every path under the mount point, static files included, first passes:
 *  - a session: the access_token cookie (a browser) or `Authorization: Bearer <JWT>`; API keys are
 *    refused (they are for the API, not for operating the service);
 *  - the staff role, read from the database on every request (requireAuth), never from the token;
 *  - the cross-site check of src/identity/auth-middleware.ts (csrfGuard, mounted before this) for its POST/PUT
 *    actions (retry, promote, clean, pause...) authenticated by cookie: the dashboard's own fetches
 *    carry Origin: TRUSTED_ORIGIN, a foreign page's do not.
 * The UI loads its scripts and styles from the same mount, so its pages get a CSP that allows
 * 'self' (adminQueuesCsp, applied by securityHeaders) instead of the API's default-src 'none'.
 * bull-board itself is imported on the first staff request to the dashboard, not at start: its
 * packages and their dependencies are a part of every start's module loading, and the worker (which
 * imports src/ops through a job) and most web processes never serve the dashboard.
 */
import type { Queue } from 'bullmq';
import type { Context, Middleware } from 'koa';
import type { Db } from '../platform/db.js';
import { DomainError, errorBody } from '../platform/errors/index.js';
import { isBackendUnavailable, type BackendProbe } from '../platform/errors/backend.js';
import type { Logger } from '../platform/logger.js';
import type { QueueClient } from '../platform/queue.js';
import { requireAuth } from '../identity/index.js';

const ADMIN_QUEUES_PATH = '/admin/queues';

const CSP_ADMIN =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; font-src 'self' https://fonts.gstatic.com; img-src 'self' data:; connect-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

const underAdminQueues = (path: string) => path === ADMIN_QUEUES_PATH || path.startsWith(`${ADMIN_QUEUES_PATH}/`);

/** Mounted outside securityHeaders: replaces its CSP on dashboard responses (the rest stays). */
/** The CSP of the dashboard's own pages (given to securityHeaders as its override); undefined elsewhere. */
export function adminQueuesCsp(ctx: Context): string | undefined {
  return underAdminQueues(ctx.path) && ctx.status < 400 ? CSP_ADMIN : undefined;
}

type AdminQueuesDeps = { db: Db; queue: QueueClient; log: Logger; probe?: BackendProbe };

/** The dashboard's Koa middleware over `queues`. */
async function createBoard(queues: Queue[], deps: AdminQueuesDeps): Promise<Middleware> {
  const [{ createBullBoard }, { BullMQAdapter }, { KoaAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/koa'),
  ]);
  const serverAdapter = new KoaAdapter();
  serverAdapter.setBasePath(ADMIN_QUEUES_PATH);
  createBullBoard({
    queues: queues.map((q) => new BullMQAdapter(q)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Squid queues' } },
  });
  // bull-board catches its handlers' errors and renders them with this: keep our error shape,
  // a 503 when Redis is down, and never a stack.
  serverAdapter.setErrorHandler((err: Error) => {
    if (isBackendUnavailable(err, deps.probe)) return { status: 503 as never, body: errorBody('service_unavailable', 'a backing service is unavailable; retry shortly') as never };
    deps.log.error({ err }, 'queue dashboard error');
    return { status: 500 as never, body: errorBody('internal_error', 'internal error') as never };
  });
  return serverAdapter.registerPlugin();
}

export function adminQueues(deps: AdminQueuesDeps): Middleware {
  const queues = deps.queue.names.map((name) => deps.queue.queue(name));
  let board: Promise<Middleware> | null = null;
  const staff = requireAuth('staff', deps.db);

  return async (ctx, next) => {
    if (!underAdminQueues(ctx.path)) return next();
    if (ctx.state.apiKey) {
      throw new DomainError('session_required', 'the queue dashboard needs a staff session (cookie or Bearer access token), not an API key');
    }
    await staff(ctx, async () => {
      board ??= createBoard(queues, deps).catch((err: unknown) => {
        board = null; // the next request tries again
        throw err;
      });
      const handle = await board;
      await handle(ctx, async () => undefined);
    });
    if (ctx.body === undefined || ctx.body === null) {
      if (ctx.status === 404) throw new DomainError('not_found', `no route for ${ctx.method} ${ctx.path}`);
      if (ctx.status === 405) throw new DomainError('method_not_allowed', `method ${ctx.method} not allowed on ${ctx.path}`);
    }
  };
}
