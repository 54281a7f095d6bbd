/**
 * The baseline of bench:events' submission figure: a POST /api/v1/news/post handler and
 * insertSubmission without the durable event log, so the benchmark can show what the log adds:
 *  - insertSubmission's transaction has no recordEvents (no event_log / event_outbox rows);
 *  - after the commit the handler retires the feed cache itself (INCR) and publishes
 *    news.submitted itself (XADD).
 * `baselineSubmitRoute(deps)` is today's route definition (same path, validation, auth) with that
 * handler, for createApp(deps, routes).
 */
import { sql } from 'kysely';
import type { Db } from '../../../src/platform/db.js';
import type { AppDeps } from '../../../src/platform/deps.js';
import { articleEvent } from '../../../src/articles/rules/article-event.js';
import { provisionalHeadline } from '../../../src/articles/rules/page-title.js';
import { slugify } from '../../../src/platform/url/slug.js';
import { normalizeUrl } from '../../../src/platform/url/normalize.js';
import { DomainError } from '../../../src/platform/errors/index.js';
import type { RouteDef } from '../../../src/platform/http/route.js';
import { DUPLICATE_WINDOW_DAYS, getArticleForEvent, type DuplicateInfo, type SubmissionInput } from '../../../src/articles/queries.js';
import { invalidateFeedCache } from '../../../src/feed/cache.js';
import { JobFailedError } from '../../../src/platform/queue.js';
import { newsRoutes } from '../../../src/articles/routes.js';

const eventColumns = ['id', 'slug', 'status', 'headline', 'origin', 'created_at', 'published_at', 'sponsored'] as const;

function sourceOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** insertSubmission without recordEvents: the same transaction, no event rows. */
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
      const supplied = body.headline;
      const r = await insertSubmissionWithoutOutbox(deps.db, {
        url: body.url,
        normalizedUrl: normalizeUrl(body.url)!,
        headline: supplied ?? provisionalHeadline(body.url),
        headlineSource: supplied ? 'supplied' : 'provisional',
        source: sourceOf(body.url),
        userId: ctx.state.user!.id,
      });
      if (r.duplicate) {
        const d = r.duplicate;
        throw new DomainError('duplicate_submission', `this URL was already submitted as article ${d.id}`, {
          article_id: d.id,
          status: d.status,
          headline: d.headline,
          submitted_at: d.created_at.toISOString(),
        });
      }
      let article = r.created!;
      const warnings: { code: string; message: string }[] = [];
      if (!supplied) {
        try {
          const w = await deps.queue.enqueueAndWait('page-title', { article_id: article.id }, deps.config.JOB_WAIT_MS);
          if (w.state === 'pending') {
            warnings.push({
              code: 'headline_pending',
              message: 'the page title did not arrive in time; the headline is provisional and will be replaced by the page title shortly',
            });
          } else if (w.result.status === 'failed') {
            warnings.push({
              code: 'headline_unavailable',
              message: `could not read a title from the page (${w.result.reason}); the headline is provisional until an editor sets one`,
            });
          }
        } catch (err) {
          if (!(err instanceof JobFailedError)) throw err;
          warnings.push({ code: 'headline_unavailable', message: 'could not read a title from the page; the headline is provisional until an editor sets one' });
        }
        article = (await getArticleForEvent(deps.db, article.id)) ?? article;
      }
      // The two calls the event log moved off the request path (into the relay).
      await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);
      await deps.events.publish(articleEvent('news.submitted', article));
      const headlineSource = (article as { headline_source?: string }).headline_source ?? (supplied ? 'supplied' : 'provisional');
      ctx.status = 201;
      ctx.body = {
        success: true,
        article_id: article.id,
        status: 'submitted',
        headline: article.headline,
        headline_source: headlineSource,
        slug: article.slug,
        warnings,
      };
    },
  };
}
