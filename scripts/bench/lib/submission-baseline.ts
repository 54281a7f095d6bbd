/**
 * The benchmark's baseline of POST /api/v1/news/post: the submission path without the durable
 * event log. It runs the production use case (submitArticle, src/articles/service.ts) with two
 * differences on the request path:
 *  - the insert's transaction has no recordEvents (no event_log / event_outbox rows, no NOTIFY);
 *  - after the commit the handler retires the feed cache (invalidateFeedCache: INCR) and publishes
 *    news.submitted itself (EventPublisher.publish: XADD).
 * `baselineSubmitRoute(deps)` is the production route definition (same path, validation, auth) with
 * that handler, for createApp(deps, routes).
 */
import { sql } from 'kysely';
import type { Db } from '../../../src/platform/db.js';
import type { AppDeps } from '../../../src/platform/deps.js';
import { articleEvent } from '../../../src/articles/rules/article-event.js';
import { slugify } from '../../../src/platform/url/slug.js';
import type { RouteDef } from '../../../src/platform/http/route.js';
import { DUPLICATE_WINDOW_DAYS, type DuplicateInfo, type SubmissionInput } from '../../../src/articles/queries.js';
import { submissionBody, submitArticle } from '../../../src/articles/service.js';
import { invalidateFeedCache } from '../../../src/feed/cache.js';
import { newsRoutes } from '../../../src/articles/routes.js';

const eventColumns = ['id', 'slug', 'status', 'headline', 'origin', 'created_at', 'published_at', 'sponsored'] as const;

/** The submission insert without recordEvents: advisory lock, duplicate check, INSERT. */
export async function insertSubmissionWithoutOutbox(db: Db, input: SubmissionInput) {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${'submission:' + input.normalizedUrl}, 0))`.execute(trx);
    const dup = await trx
      .selectFrom('articles')
      .select(['id', 'status', 'headline', 'created_at'])
      .where('normalized_url', '=', input.normalizedUrl)
      .where('created_at', '>', sql<Date>`now() - make_interval(days => ${DUPLICATE_WINDOW_DAYS}::int)`)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (dup) return { duplicate: dup as DuplicateInfo } as const;
    const created = await trx
      .insertInto('articles')
      .values({
        slug: slugify(input.headline),
        headline: input.headline,
        headline_source: input.headlineSource,
        url: input.url,
        normalized_url: input.normalizedUrl,
        source: input.source,
        status: 'submitted',
        origin: 'manual',
        submitted_by: input.userId,
      })
      .returning([...eventColumns])
      .executeTakeFirstOrThrow();
    return { created } as const;
  });
}

export function baselineSubmitRoute(deps: AppDeps): RouteDef {
  const today = newsRoutes(deps).find((r) => r.operationId === 'submitArticle');
  if (!today) throw new Error('submitArticle route not found');
  return {
    ...today,
    async handler(ctx, { body }: { body: { url: string; headline?: string } }) {
      const r = await submitArticle(deps, { url: body.url, headline: body.headline, userId: ctx.state.user!.id }, insertSubmissionWithoutOutbox);
      // The two calls the event log moved off the request path (into the relay).
      await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
      await deps.events.publish(articleEvent('news.submitted', r.article));
      ctx.status = 201;
      ctx.body = submissionBody(r);
    },
  };
}
