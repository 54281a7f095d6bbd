/**
 * Articles (spec: Articles and comments): submit, URL check, feed, full record, clicks, votes.
 * Yaps are in yap-routes.ts, the editorial workflow in src/editor/. Decisions where the spec is silent
 * are in each route's description (they reach the OpenAPI document).
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { answerConditional, etagOf, PRIVATE_REVALIDATE, PUBLIC_REVALIDATE } from '../platform/http/conditional.js';
import { errorResponses } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { articleUrl, DUPLICATE_WINDOW_DAYS, findByExactUrl } from './queries.js';
import { countClick } from './click-service.js';
import { submissionBody, submitArticle } from './service.js';
import { voteOnArticle } from './vote-service.js';
import { articleNotFound, canSee, isSignedIn } from './route-helpers.js';
import { articleRecord } from './reads.js';
import { toSubmitter } from './mappers.js';
import { text } from '../platform/http/schemas.js';
import { articleRecordSchema, articleVoteResult, headlineInput, idParam, MAX_SUBMIT_URL_LENGTH, submissionResult, submitUrl, urlCheckResult, weight } from './schemas.js';

function submitRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/news/post',
    operationId: 'submitArticle',
    summary: 'Submit an article URL to the curation queue',
    description: [
      'Creates a `submitted` article. Without `headline`, the page title is fetched by a worker job (og:title, twitter:title, then <title>) and the request waits for it at most JOB_WAIT_MS (default 3 s).',
      'If the wait runs out, the article keeps a provisional headline ("host/path") and `warnings` holds `{code: "headline_pending"}`; the job fills the real title in later. If the page cannot be read (private address, not HTML, no title, HTTP error) the warning is `headline_unavailable` and the provisional headline stays until an editor edits it.',
      `Duplicates: when the normalised URL (tracking parameters stripped, see POST /provenance/check) was submitted in the last ${DUPLICATE_WINDOW_DAYS} days, in any status, no article is created: 409 duplicate_submission with details {article_id, status, headline, submitted_at}.`,
      'Publishes the staff-only event news.submitted.',
    ].join('\n\n'),
    tags: ['articles'],
    auth: 'user',
    body: z.strictObject({ url: submitUrl, headline: headlineInput.optional() }),
    responses: {
      201: { description: 'created', schema: submissionResult },
      ...errorResponses({ 401: 'not signed in', 409: 'duplicate_submission' }),
    },
    async handler(ctx, { body }) {
      const r = await submitArticle(deps, { url: body.url, headline: body.headline, userId: ctx.state.user!.id });
      ctx.status = 201;
      ctx.body = submissionBody(r);
    },
  });
}

function checkUrlRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/news/check',
    operationId: 'checkArticleUrl',
    summary: 'Has this exact URL been submitted?',
    description:
      'Exact match on the URL string as submitted: another query string, a trailing slash or a tracking parameter makes a different URL (use POST /provenance/check for normalised matching). When several articles match, the newest. Authenticated callers also get `submitted_by` {id, username, ethereum_address}.',
    tags: ['articles'],
    query: z.strictObject({ url: text().min(1, 'is required').max(MAX_SUBMIT_URL_LENGTH) }),
    responses: { 200: { description: 'result', schema: urlCheckResult } },
    async handler(ctx, { query }) {
      const row = await findByExactUrl(deps.db, query.url);
      if (!row) {
        ctx.body = { exists: false };
        return;
      }
      const body: Record<string, unknown> = {
        exists: true,
        article_id: row.id,
        status: row.status,
        headline: row.headline,
        submitted_at: row.created_at.toISOString(),
      };
      if (isSignedIn(ctx)) body.submitted_by = toSubmitter(row.submitter_id, row.submitter_username, row.submitter_address);
      ctx.body = body;
    },
  });
}

function articleRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/news/:id/',
    operationId: 'getArticle',
    summary: 'The full article record',
    description:
      'Every feed-item field plus normalized_url, headline_source, updated_at, scheduled_for, reviewed_at, reviewed_by, hot_terms (the terms of the hot score, with a one-line explanation) and, for signed-in callers, submitted_by and my_vote. Approved and retracted articles are public; others are 404 unless the caller is signed in. The response has a strong ETag (If-None-Match -> 304 with no body) and Cache-Control public (anonymous) or private (authenticated), max-age=0, must-revalidate; no Last-Modified (votes and clicks change the record without changing updated_at).',
    tags: ['articles'],
    params: idParam,
    responses: {
      200: { description: 'record', schema: articleRecordSchema },
      304: { description: 'not modified (If-None-Match matched); no body' },
      ...errorResponses({ 404: 'article_not_found' }),
    },
    async handler(ctx, { params }) {
      const body = Buffer.from(JSON.stringify(await articleRecord(deps, ctx, params.id)));
      ctx.type = 'application/json';
      // Signed-in callers' records carry submitted_by and my_vote: private. No Last-Modified:
      // votes, clicks and hot-score runs change the record without touching updated_at.
      if (answerConditional(ctx, { etag: etagOf(body), cacheControl: isSignedIn(ctx) ? PRIVATE_REVALIDATE : PUBLIC_REVALIDATE, vary: 'Authorization, Cookie' })) return;
      ctx.body = body;
    },
  });
}

function clickRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/news/:id/click',
    operationId: 'clickArticle',
    summary: 'Redirect to the article URL and count the click',
    description: [
      '302 to the article URL. The click is counted (`clicks`) when the article is approved, the request is a GET from a browser-like user agent (crawlers, link-preview fetchers and scripted HTTP clients are redirected but not counted), and the same reader (user id, else IP + user agent) has not clicked this article in the last CLICK_DEDUPE_S seconds (default 3600).',
      'Counted clicks feed the hot score (debounced recompute).',
      'A signed-in caller opening the link from a browser is recorded as a reader of the article (whatever its status), which the rewards credibility rules read (docs/rewards.md).',
    ].join('\n\n'),
    tags: ['articles'],
    params: idParam,
    responses: {
      302: { description: 'redirect to the article', headers: { Location: { description: 'The article URL', schema: z.string() } } },
      ...errorResponses({ 404: 'article_not_found' }),
    },
    async handler(ctx, { params }) {
      const a = await articleUrl(deps.db, params.id);
      if (!a || !canSee(ctx, a.status)) throw articleNotFound(params.id);
      await countClick(deps, a, { method: ctx.method, userAgent: ctx.get('user-agent') || undefined, userId: ctx.state.user?.id, ip: ctx.ip });
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Referrer-Policy', 'no-referrer-when-downgrade');
      ctx.status = 302;
      ctx.redirect(a.url);
    },
  });
}

function voteRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/news/:id/vote',
    operationId: 'voteArticle',
    summary: 'Vote on an article: 1 up, -1 down, 0 clear',
    description:
      "One vote per user per article; a new vote replaces the previous one, 0 removes it. The response is {article_id, weight (the caller's vote now), vote_count (net), votes (cast)}, exact under concurrent votes. Submitted, scheduled and approved articles take votes; killed and retracted ones answer 409 article_closed.",
    tags: ['articles'],
    auth: 'user',
    params: idParam,
    body: z.strictObject({ weight }),
    responses: { 200: { description: 'vote stored', schema: articleVoteResult }, ...errorResponses({ 401: 'not signed in', 404: 'article_not_found', 409: 'article_closed' }) },
    async handler(ctx, { params, body }) {
      ctx.body = await voteOnArticle(deps, { articleId: params.id, userId: ctx.state.user!.id, weight: body.weight });
    },
  });
}

/**
 * The article routes. `listings` (GET /news/ and the syndication feeds, src/feed/) are registered
 * between the parameterless routes and /news/:id/, which would otherwise match /news/feed.rss.
 */
export function newsRoutes(deps: AppDeps, listings: RouteDef[] = []): RouteDef[] {
  return [submitRoute(deps), checkUrlRoute(deps), ...listings, articleRoute(deps), clickRoute(deps), voteRoute(deps)];
}
