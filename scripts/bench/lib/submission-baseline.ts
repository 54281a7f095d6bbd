/**
 * The benchmark's baseline of POST /api/v1/news/post: the submission path without the durable
 * event log. It runs the production use case (submitArticle, src/articles/service.ts) with its
 * `none` events (the same transaction and statements, no event_log / event_outbox rows, no NOTIFY)
 * and, after the commit, does on the request path what the relay does for the production path:
 * retires the feed cache (invalidateFeedCache: INCR) and publishes news.submitted
 * (EventPublisher.publish: XADD). `baselineSubmitRoute(deps)` is the production route definition
 * (same path, validation, auth) with that handler, for createApp(deps, routes).
 */
import type { AppDeps } from '../../../src/platform/deps.js';
import { articleEvent } from '../../../src/articles/rules/article-event.js';
import type { RouteDef } from '../../../src/platform/http/route.js';
import { submissionBody, submitArticle } from '../../../src/articles/service.js';
import { invalidateFeedCache } from '../../../src/feed/cache.js';
import { newsRoutes } from '../../../src/articles/routes.js';

export function baselineSubmitRoute(deps: AppDeps): RouteDef {
  const today = newsRoutes(deps).find((r) => r.operationId === 'submitArticle');
  if (!today) throw new Error('submitArticle route not found');
  return {
    ...today,
    async handler(ctx, { body }: { body: { url: string; headline?: string } }) {
      const r = await submitArticle(deps, { url: body.url, headline: body.headline, userId: ctx.state.user!.id }, 'none');
      await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
      await deps.events.publish(articleEvent('news.submitted', r.article));
      ctx.status = 201;
      ctx.body = submissionBody(r);
    },
  };
}
