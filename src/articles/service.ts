/**
 * The submission use case: normalise the URL, insert the article unless it is a duplicate (the
 * insert and its news.submitted event are one transaction, see insertSubmission), and without a
 * supplied headline wait a bounded time for the page-title job, turning its outcome into warnings.
 */
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { JobFailedError } from '../platform/queue.js';
import { normalizeUrl } from '../platform/url/normalize.js';
import { getArticleForEvent, insertSubmission, type SubmissionEvents } from './queries.js';
import { provisionalHeadline } from './rules/page-title.js';

type Submitted = NonNullable<Awaited<ReturnType<typeof insertSubmission>>['created']> & { headline_source?: string };

interface SubmissionWarning {
  code: string;
  message: string;
}

function sourceOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}

/** An article warning (not an error code: the submission succeeded). */
function warning(code: SubmissionWarning['code'], message: string): SubmissionWarning {
  return { code, message };
}

/** Wait JOB_WAIT_MS at most for the page title; what the submitter should know about it. */
async function awaitPageTitle(deps: AppDeps, articleId: number): Promise<SubmissionWarning[]> {
  try {
    const w = await deps.queue.enqueueAndWait('page-title', { article_id: articleId }, deps.config.JOB_WAIT_MS);
    if (w.state === 'pending') {
      return [warning('headline_pending', 'the page title did not arrive in time; the headline is provisional and will be replaced by the page title shortly')];
    }
    if (w.result.status === 'failed') {
      return [warning('headline_unavailable', `could not read a title from the page (${w.result.reason}); the headline is provisional until an editor sets one`)];
    }
    return [];
  } catch (err) {
    if (!(err instanceof JobFailedError)) throw err;
    return [warning('headline_unavailable', 'could not read a title from the page; the headline is provisional until an editor sets one')];
  }
}

/**
 * Submit a URL for review. A duplicate of the last DUPLICATE_WINDOW_DAYS throws
 * duplicate_submission. `events`: whether the insert records news.submitted (`none` only for the
 * benchmark's baseline without the event log).
 */
export async function submitArticle(
  deps: AppDeps,
  input: { url: string; headline?: string; userId: number },
  events: SubmissionEvents = 'record',
): Promise<{ article: Submitted; headlineSource: string; warnings: SubmissionWarning[] }> {
  const supplied = input.headline;
  const r = await insertSubmission(
    deps.db,
    {
      url: input.url,
      normalizedUrl: normalizeUrl(input.url)!,
      headline: supplied ?? provisionalHeadline(input.url),
      headlineSource: supplied ? 'supplied' : 'provisional',
      source: sourceOf(input.url),
      userId: input.userId,
    },
    events,
  );
  if (r.duplicate) {
    const d = r.duplicate;
    throw new DomainError('duplicate_submission', `this URL was already submitted as article ${d.id}`, {
      article_id: d.id,
      status: d.status,
      headline: d.headline,
      submitted_at: d.created_at.toISOString(),
    });
  }
  let article: Submitted = r.created!;
  let warnings: SubmissionWarning[] = [];
  if (!supplied) {
    warnings = await awaitPageTitle(deps, article.id);
    article = (await getArticleForEvent(deps.db, article.id)) ?? article;
  }
  return { article, headlineSource: article.headline_source ?? (supplied ? 'supplied' : 'provisional'), warnings };
}

/** The 201 body of POST /news/post. */
export function submissionBody(r: Awaited<ReturnType<typeof submitArticle>>) {
  return {
    success: true,
    article_id: r.article.id,
    status: 'submitted',
    headline: r.article.headline,
    headline_source: r.headlineSource,
    slug: r.article.slug,
    warnings: r.warnings,
  };
}
