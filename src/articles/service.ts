/**
 * The submission use cases: normalise the URL, insert the article unless it is a duplicate (the
 * insert and its news.submitted event are one transaction, see insertSubmission), and without a
 * supplied headline wait a bounded time for the page-title job, turning its outcome into warnings;
 * the page-title job's write of the title it found (applyPageTitle).
 */
import type { AppDeps } from '../platform/deps.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { internalEvent, newsEvent, recordEvents } from '../platform/events/log.js';
import { JobFailedError } from '../platform/queue.js';
import { normalizeUrl } from '../platform/url/normalize.js';
import { slugify } from '../platform/url/slug.js';
import { duplicateCheck, getArticleForEvent, insertSubmittedArticle, lockSubmissionUrl, type PageTitleRow, type SubmissionInput, writePageTitle } from './queries.js';
import { articleEvent } from './rules/article-event.js';
import { provisionalHeadline, type PageMeta } from './rules/page-title.js';

/**
 * Whether a submission's insert records its news.submitted event: `record` (always, in the
 * service), or `none` (the same statements without the event log: the benchmark's baseline).
 */
type SubmissionEvents = 'record' | 'none';

/**
 * Insert a `submitted` article unless its normalised URL was submitted in the last
 * DUPLICATE_WINDOW_DAYS days, and record its news.submitted event (with the headline it has now:
 * the supplied one or the provisional one) in the same transaction, by the INSERT statement itself:
 * three statements. The advisory lock on the normalised URL makes the check-then-insert atomic: two
 * concurrent submissions of one URL create one article.
 */
export async function insertSubmission(db: Db, input: SubmissionInput, events: SubmissionEvents = 'record') {
  return db.transaction().execute(async (trx) => {
    await lockSubmissionUrl(trx, input.normalizedUrl);
    const pre = await duplicateCheck(trx, input.normalizedUrl);
    if (pre.duplicate) return { duplicate: pre.duplicate } as const;
    const row = {
      id: pre.newId,
      slug: slugify(input.headline),
      status: 'submitted',
      headline: input.headline,
      origin: 'manual',
      created_at: pre.now,
      published_at: null,
      sponsored: null,
    };
    const created = await insertSubmittedArticle(trx, row, input, events === 'record' ? [newsEvent(articleEvent('news.submitted', row))] : null);
    return { created } as const;
  });
}

/**
 * The statement that writes a page title (writePageTitle, or the assets feature's, which tags the
 * new headline in the same statement); `event` joins the article.edited event's payload.
 * Undefined when the headline is no longer provisional.
 */
export type PageTitleWrite = (trx: Db, id: number, page: PageMeta) => Promise<{ row: PageTitleRow; event?: Record<string, unknown> } | undefined>;

const plainPageTitle: PageTitleWrite = async (trx, id, page) => {
  const row = await writePageTitle(trx, id, page);
  return row && { row };
};

/**
 * Fill in the page title of a submission that still has its provisional headline (never overwrites
 * an editor's or submitter's), with the page's description and claimed time; the internal
 * article.edited event (reason `page_title`), in the same transaction, retires the feed cache and
 * calls for the story assignment. Undefined when the headline is no longer provisional.
 */
export async function applyPageTitle(db: Db, id: number, page: PageMeta, write: PageTitleWrite = plainPageTitle) {
  return db.transaction().execute(async (trx) => {
    const written = await write(trx, id, page);
    if (written) await recordEvents(trx, [internalEvent('article.edited', id, { reason: 'page_title', ...written.event })]);
    return written?.row;
  });
}

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

/** Outside production, a refused private address names the setting that allows it. */
const privateAddressHint = ': the URL resolves to a private or loopback address, which outbound fetches refuse unless OUTBOUND_ALLOW_PRIVATE=true';

/** Wait JOB_WAIT_MS at most for the page title; what the submitter should know about it. */
async function awaitPageTitle(deps: AppDeps, articleId: number): Promise<SubmissionWarning[]> {
  try {
    const w = await deps.queue.enqueueAndWait('page-title', { article_id: articleId }, deps.config.JOB_WAIT_MS);
    if (w.state === 'pending') {
      return [warning('headline_pending', 'the page title did not arrive in time; the headline is provisional and will be replaced by the page title shortly')];
    }
    if (w.result.status === 'failed') {
      const hint = w.result.reason === 'blocked_address' && deps.config.NODE_ENV !== 'production' ? privateAddressHint : '';
      return [warning('headline_unavailable', `could not read a title from the page (${w.result.reason}${hint}); the headline is provisional until an editor sets one`)];
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
