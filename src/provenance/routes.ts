/**
 * Provenance endpoints (spec: Provenance). The check runs on a worker (job provenance-check): the
 * web process waits up to JOB_WAIT_MS and answers 200 with the result, or 202 with a job id that
 * the client polls at GET /provenance/check/<job_id> (results are kept for 1 hour).
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { HEADLINE_MATCH_THRESHOLD } from './rules/headline-similarity.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';
import { isoTime } from '../platform/iso-time.js';
import { checkBody, checkResultSchema, pendingSchema, receiptsSchema, searchResultsSchema } from './schemas.js';
import { articleReceipts, checkAnswer, pollCheck, searchArticles, startCheck, type CheckOutcome } from './service.js';

const DESCRIPTION = [
  'Is this story new? URL is the primary signal: the URL is normalised (tracking parameters stripped, twitter.com -> x.com, see README) and matched against curated articles (approved, not sponsored) and wire receipts of the last 30 days.',
  `With text only (or when the URL matches no article and text is also given), headline similarity against curated articles of the last 30 days: candidates from a pg_trgm index, scored with string-similarity on normalised headlines; a match needs similarity >= ${HEADLINE_MATCH_THRESHOLD}.`,
  'Verdicts: new = no matches; stale = every match older than 7 days (beats known for one old match); duplicate = 2+ matches and the latest younger than 24 h; known = otherwise (one match, or an older single confirmation). Wire receipts are reported but do not count as matches.',
  'The web process waits a bounded time for the worker; when the result is not ready it answers 202 with `job_id` and `poll_url` (also in the Location header): poll GET /api/v1/provenance/check/{job_id}.',
].join('\n\n');

/** 200 with the result, or 202 with the poll URL (also in Location). */
function respond(ctx: Context, outcome: CheckOutcome) {
  const answer = checkAnswer(outcome);
  if (!answer.pending) {
    ctx.body = answer.body;
    return;
  }
  ctx.status = 202;
  ctx.set('Location', answer.body.poll_url);
  ctx.set('Retry-After', '1');
  ctx.body = answer.body;
}

function isSignedIn(ctx: Context): boolean {
  return Boolean(ctx.state.user || ctx.state.apiKey);
}

function checkRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/provenance/check',
    operationId: 'provenanceCheck',
    summary: 'Duplicate / novelty check of a URL and/or headline text',
    description: DESCRIPTION,
    tags: ['provenance'],
    rateLimit: { key: 'provenance-check', points: 30, durationS: 60 },
    body: checkBody,
    responses: {
      200: { description: 'The check result', schema: checkResultSchema },
      202: {
        description: 'Still running: poll `poll_url`',
        schema: pendingSchema,
        headers: { Location: { description: 'The poll URL', schema: z.string() }, 'Retry-After': { description: 'Seconds to wait before polling', schema: z.string() } },
      },
      503: { description: 'provenance_check_failed' },
    },
    async handler(ctx, { body }) {
      respond(ctx, await startCheck(deps, body));
    },
  });
}

function pollRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/provenance/check/:job_id',
    operationId: 'provenanceCheckResult',
    summary: 'Poll a provenance check that answered 202',
    tags: ['provenance'],
    rateLimit: { key: 'provenance-poll', points: 120, durationS: 60 },
    params: z.strictObject({ job_id: z.uuid().meta({ description: 'job_id from the 202 answer' }) }),
    responses: {
      200: { description: 'The check result', schema: checkResultSchema },
      202: { description: 'Still running', schema: pendingSchema },
      404: { description: 'provenance_job_not_found' },
      503: { description: 'provenance_check_failed' },
    },
    async handler(ctx, { params }) {
      respond(ctx, await pollCheck(deps, params.job_id));
    },
  });
}

function searchRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/provenance/search',
    operationId: 'provenanceSearch',
    summary: 'Search curated editorial articles of the last `days` days',
    description:
      "Curated articles (approved, not sponsored; automatic-ingest wire items and articles still in the editors' queue are excluded) published within the window, matching `q` by English full text or by trigram word similarity (typos forgiven); ranked by word similarity + normalised full-text rank, newest first on ties.",
    tags: ['provenance'],
    rateLimit: { key: 'provenance-search', points: 30, durationS: 60 },
    query: z.strictObject({
      q: text().trim().min(1).max(200).meta({ description: 'Search text' }),
      days: queryInt({ min: 1, max: 365, default: 30 }).meta({ description: 'Window in days, 1-365 (default 30)' }),
      limit: queryInt({ min: 1, max: 50, default: 20 }).meta({ description: 'Results, 1-50 (default 20)' }),
    }),
    responses: { 200: { description: 'Matching articles, best first', schema: searchResultsSchema } },
    async handler(ctx, { query }) {
      ctx.body = await searchArticles(deps, query);
    },
  });
}

type Receipts = Awaited<ReturnType<typeof articleReceipts>>;

function toIngestReceipt(wire: NonNullable<Receipts['wire']>) {
  return {
    wire_item_id: wire.item.id,
    source_name: wire.item.source_name,
    source_url: wire.item.source_url,
    item_url: wire.item.url,
    ingested_at: wire.item.ingested_at.toISOString(),
    publisher_claimed_time: wire.item.publisher_claimed_at ? wire.item.publisher_claimed_at.toISOString() : null,
    promoted_at: wire.item.promoted_at ? wire.item.promoted_at.toISOString() : null,
    promoted_by: wire.item.promoted_by === null ? ('automatic' as const) : ('editor' as const),
    novelty: wire.item.novelty,
    score: wire.item.score,
    receipts: wire.receipts.map((r) => ({
      source_name: r.source_name,
      source_url: r.source_url,
      ingested_at: r.ingested_at.toISOString(),
      publisher_claimed_time: r.publisher_claimed_at ? r.publisher_claimed_at.toISOString() : null,
      item_url: r.item_url,
    })),
  };
}

function toReceipts({ article: a, tldr, yaps, wire, edits }: Receipts) {
  return {
    news_id: a.id,
    headline: a.headline,
    status: a.status,
    origin: a.origin,
    source: a.source,
    url: a.url,
    canonical_url: a.normalized_url,
    tags: a.tags,
    first_seen: a.created_at.toISOString(),
    published_at: a.published_at ? a.published_at.toISOString() : null,
    sponsored: a.sponsored !== null,
    tldr: tldr ? { yap_id: tldr.id, text: tldr.text, score: tldr.score ?? 0, created_at: tldr.created_at.toISOString() } : null,
    top_comments: yaps.map((y) => ({
      yap_id: y.id,
      text: y.text,
      tags: y.tags,
      score: y.score ?? 0,
      created_at: y.created_at.toISOString(),
      author: { username: y.username ?? null, account_type: y.account_type ?? null },
    })),
    ingest_receipt: wire ? toIngestReceipt(wire) : null,
    edit_history: edits.map((e) => ({
      edited_at: isoTime(e.created_at),
      editor: e.editor_id === null ? null : { id: e.editor_id, username: e.editor_username ?? null },
      changes: e.changes as Record<string, { from: unknown; to: unknown }>,
    })),
    meta: { first_seen_basis: 'leviathan_observation' as const },
  };
}

function receiptsRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/provenance/receipts/:news_id',
    operationId: 'provenanceReceipts',
    summary: "An article's provenance receipts",
    description:
      'Source, canonical (normalised) URL, TLDR (the best-scored yap tagged tldr), tags, top community comments (yaps by score), the wire ingest receipt when the article was promoted from the wire (with every source that carried it), and the editorial edit history. Published (approved) and retracted articles are public; others need a signed-in caller, else 404.',
    tags: ['provenance'],
    rateLimit: { key: 'provenance-receipts', points: 60, durationS: 60 },
    params: z.strictObject({
      news_id: z
        .string()
        .regex(/^\d{1,10}$/, 'must be a positive integer')
        .transform(Number)
        .pipe(z.number().int().min(1).max(2_147_483_647)),
    }),
    responses: {
      200: { description: 'Receipts', schema: receiptsSchema },
      404: { description: 'article_not_found' },
    },
    async handler(ctx, { params }) {
      ctx.body = toReceipts(await articleReceipts(deps.db, params.news_id, isSignedIn(ctx)));
    },
  });
}

export function provenanceRoutes(deps: AppDeps): RouteDef[] {
  return [checkRoute(deps), pollRoute(deps), searchRoute(deps), receiptsRoute(deps)];
}
