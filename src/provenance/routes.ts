/**
 * Provenance endpoints (spec: Provenance). The check runs on a worker (job provenance-check): the
 * web process waits up to JOB_WAIT_MS and answers 200 with the result, or 202 with a job id that
 * the client polls at GET /provenance/check/<job_id> (results are kept for 1 hour).
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { MAX_CHECK_TEXT_LENGTH, MAX_CHECK_URL_LENGTH } from './rules/settings.js';
import type { AppDeps } from '../platform/deps.js';
import { HEADLINE_MATCH_THRESHOLD } from './rules/headline-similarity.js';
import type { ProvenanceCheckResult } from './rules/check.js';
import { normalizeUrl } from '../platform/url/normalize.js';
import { DomainError } from '../platform/errors/index.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { JobFailedError } from '../platform/queue.js';
import { isoTime } from '../platform/iso-time.js';
import { listEdits } from '../articles/index.js';
import { ingestReceipt, receiptArticle, searchCurated, topTldr, topYaps } from './queries.js';
import { isoTimestamp } from '../platform/http/schemas.js';

const matchSchema = z.object({
  news_id: z.number().int().meta({ description: 'Article id' }),
  headline: z.string(),
  source: z.string(),
  canonical_url: z.string().meta({ description: 'The article URL in normalised form' }),
  similarity: z.number().meta({ description: '1.0 for a URL match or identical normalised headlines' }),
  method: z.enum(['url', 'headline']),
  seen_at: isoTimestamp('When this service first observed the article (its submission time)'),
});

const receiptSchema = z.object({
  source_name: z.string(),
  source_url: z.string().meta({ description: 'The wire source (feed URL) that carried the item' }),
  ingested_at: isoTimestamp('When we ingested it (our observation)'),
  publisher_claimed_time: isoTimestamp().nullable().meta({ description: "The feed's own date for the item; not authoritative" }),
  item_url: z.string().meta({ description: 'The item link as that source published it' }),
});

const checkResultSchema = z
  .object({
    verdict: z.enum(['new', 'known', 'duplicate', 'stale']),
    match_count: z.number().int(),
    first_seen: isoTimestamp().nullable().meta({ description: 'Earliest of our observations (matches and wire receipts); null when none' }),
    latest_seen: isoTimestamp().nullable(),
    normalized_url: z.string().nullable().meta({ description: 'The normalised form of `url` (null when only text was given)' }),
    matches: z.array(matchSchema),
    tsunami_receipts: z.array(receiptSchema),
    meta: z.object({
      first_seen_basis: z.literal('leviathan_observation'),
      lookback_days: z.number().int(),
      methods: z.array(z.enum(['url', 'headline'])),
      headline_threshold: z.number(),
      checked_at: isoTimestamp(),
    }),
  })
  .meta({ id: 'ProvenanceCheckResult' });

const pendingSchema = z
  .object({
    status: z.literal('pending'),
    job_id: z.string(),
    poll_url: z.string().meta({ description: 'GET this URL until it answers 200 with the result' }),
  })
  .meta({ id: 'ProvenanceCheckPending' });

const checkBody = z
  .strictObject({
    url: z
      .string()
      .trim()
      .min(1)
      .max(MAX_CHECK_URL_LENGTH)
      .refine((u) => normalizeUrl(u) !== null, 'must be an absolute http(s) URL')
      .optional()
      .meta({ description: 'The URL to check (primary signal)' }),
    text: z
      .string()
      .trim()
      .min(1)
      .max(MAX_CHECK_TEXT_LENGTH)
      .optional()
      .meta({ description: 'A headline or short text; matched by headline similarity when no URL is given (or the URL matches nothing)' }),
  })
  .superRefine((b, ctx) => {
    if (b.url === undefined && b.text === undefined) ctx.addIssue({ code: 'custom', message: 'url or text is required (at least one)', path: [] });
  });

const DESCRIPTION = [
  'Is this story new? URL is the primary signal: the URL is normalised (tracking parameters stripped, twitter.com -> x.com, see README) and matched against curated articles (approved, not sponsored) and wire receipts of the last 30 days.',
  `With text only (or when the URL matches no article and text is also given), headline similarity against curated articles of the last 30 days: candidates from a pg_trgm index, scored with string-similarity on normalised headlines; a match needs similarity >= ${HEADLINE_MATCH_THRESHOLD}.`,
  'Verdicts: new = no matches; stale = every match older than 7 days (beats known for one old match); duplicate = 2+ matches and the latest younger than 24 h; known = otherwise (one match, or an older single confirmation). Wire receipts are reported but do not count as matches.',
  'The web process waits a bounded time for the worker; when the result is not ready it answers 202 with `job_id` and `poll_url` (also in the Location header): poll GET /api/v1/provenance/check/{job_id}.',
].join('\n\n');

function pollUrl(jobId: string): string {
  return `${API_PREFIX}/provenance/check/${jobId}`;
}

function respondPending(ctx: Context, jobId: string) {
  ctx.status = 202;
  ctx.set('Location', pollUrl(jobId));
  ctx.set('Retry-After', '1');
  ctx.body = { status: 'pending', job_id: jobId, poll_url: pollUrl(jobId) };
}

function checkFailed(jobId: string): DomainError {
  return new DomainError('provenance_check_failed', 'the provenance check could not be completed; send it again', { job_id: jobId }, { headers: { 'Retry-After': '2' } });
}

function isSignedIn(ctx: Context): boolean {
  return Boolean(ctx.state.user || ctx.state.apiKey);
}

const PUBLIC_STATUSES = ['approved', 'retracted'];
const TOP_COMMENTS = 5;

export function provenanceRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
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
        let outcome;
        try {
          outcome = await deps.queue.enqueueAndWait('provenance-check', { url: body.url, text: body.text }, deps.config.JOB_WAIT_MS);
        } catch (err) {
          if (err instanceof JobFailedError) throw checkFailed(err.jobId);
          throw err;
        }
        if (outcome.state === 'pending') return respondPending(ctx, outcome.jobId);
        ctx.body = outcome.result;
      },
    }),

    defineRoute({
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
        const queue = deps.queue.queue('provenance-check');
        const notFound = () => new DomainError('provenance_job_not_found', `no provenance check ${params.job_id} (results are kept for 1 hour)`);
        // The state first, then the job: a job read first and found completed a moment later would
        // still hold no result (a poll at the instant of completion answered an empty 204).
        const state = await queue.getJobState(params.job_id);
        if (state === 'completed') {
          const job = await queue.getJob(params.job_id);
          if (!job?.returnvalue) throw notFound(); // removed since (results are kept for 1 hour)
          ctx.body = job.returnvalue as ProvenanceCheckResult;
          return;
        }
        if (state === 'failed') throw checkFailed(params.job_id);
        if (state === 'unknown') throw notFound();
        respondPending(ctx, params.job_id);
      },
    }),

    defineRoute({
      method: 'get',
      path: '/provenance/search',
      operationId: 'provenanceSearch',
      summary: 'Search curated editorial articles of the last `days` days',
      description:
        "Curated articles (approved, not sponsored; automatic-ingest wire items and articles still in the editors' queue are excluded) published within the window, matching `q` by English full text or by trigram word similarity (typos forgiven); ranked by word similarity + normalised full-text rank, newest first on ties.",
      tags: ['provenance'],
      rateLimit: { key: 'provenance-search', points: 30, durationS: 60 },
      query: z.strictObject({
        q: z.string().trim().min(1).max(200).meta({ description: 'Search text' }),
        days: queryInt({ min: 1, max: 365, default: 30 }).meta({ description: 'Window in days, 1-365 (default 30)' }),
        limit: queryInt({ min: 1, max: 50, default: 20 }).meta({ description: 'Results, 1-50 (default 20)' }),
      }),
      responses: {
        200: {
          description: 'Matching articles, best first',
          schema: z.object({
            results: z.array(
              z.object({
                news_id: z.number().int(),
                headline: z.string(),
                url: z.string(),
                canonical_url: z.string(),
                source: z.string(),
                tags: z.array(z.string()),
                published_at: isoTimestamp().nullable(),
                relevance: z.number(),
              }),
            ),
            count: z.number().int(),
            q: z.string(),
            days: z.number().int(),
            limit: z.number().int(),
          }),
        },
      },
      async handler(ctx, { query }) {
        // queryInt's declared type does not carry its default; the values are always set.
        const days = query.days;
        const limit = query.limit;
        const hits = await searchCurated(deps.db, query.q, days, limit);
        ctx.body = {
          results: hits.map((h) => ({
            news_id: h.id,
            headline: h.headline,
            url: h.url,
            canonical_url: h.normalized_url,
            source: h.source,
            tags: h.tags,
            published_at: (h.published_at ?? h.created_at).toISOString(),
            relevance: h.relevance,
          })),
          count: hits.length,
          q: query.q,
          days,
          limit,
        };
      },
    }),

    defineRoute({
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
        200: {
          description: 'Receipts',
          schema: z
            .object({
              news_id: z.number().int(),
              headline: z.string(),
              status: z.string(),
              origin: z.string(),
              source: z.string(),
              url: z.string(),
              canonical_url: z.string(),
              tags: z.array(z.string()),
              first_seen: isoTimestamp(),
              published_at: isoTimestamp().nullable(),
              sponsored: z.boolean(),
              tldr: z.object({ yap_id: z.number().int(), text: z.string(), score: z.number().int(), created_at: isoTimestamp() }).nullable(),
              top_comments: z.array(
                z.object({
                  yap_id: z.number().int(),
                  text: z.string(),
                  tags: z.array(z.string()),
                  score: z.number().int(),
                  created_at: isoTimestamp(),
                  author: z.object({ username: z.string().nullable(), account_type: z.string().nullable() }),
                }),
              ),
              ingest_receipt: z
                .object({
                  wire_item_id: z.number().int(),
                  source_name: z.string(),
                  source_url: z.string(),
                  item_url: z.string(),
                  ingested_at: isoTimestamp(),
                  publisher_claimed_time: isoTimestamp().nullable(),
                  promoted_at: isoTimestamp().nullable(),
                  promoted_by: z.enum(['automatic', 'editor']),
                  novelty: z.number().nullable(),
                  score: z.number().nullable(),
                  receipts: z.array(receiptSchema),
                })
                .nullable(),
              edit_history: z.array(
                z.object({
                  edited_at: isoTimestamp(),
                  editor: z.object({ id: z.number().int(), username: z.string().nullable() }).nullable(),
                  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
                }),
              ),
              meta: z.object({ first_seen_basis: z.literal('leviathan_observation') }),
            })
            .meta({ id: 'ProvenanceReceipts' }),
        },
        404: { description: 'article_not_found' },
      },
      async handler(ctx, { params }) {
        const id = params.news_id;
        const a = await receiptArticle(deps.db, id);
        if (!a || (!PUBLIC_STATUSES.includes(a.status) && !isSignedIn(ctx))) throw new DomainError('article_not_found', `article ${id} not found`);
        const [tldr, yaps, wire, edits] = await Promise.all([topTldr(deps.db, id), topYaps(deps.db, id, TOP_COMMENTS), ingestReceipt(deps.db, id), listEdits(deps.db, id)]);
        ctx.body = {
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
          ingest_receipt: wire
            ? {
                wire_item_id: wire.item.id,
                source_name: wire.item.source_name,
                source_url: wire.item.source_url,
                item_url: wire.item.url,
                ingested_at: wire.item.ingested_at.toISOString(),
                publisher_claimed_time: wire.item.publisher_claimed_at ? wire.item.publisher_claimed_at.toISOString() : null,
                promoted_at: wire.item.promoted_at ? wire.item.promoted_at.toISOString() : null,
                promoted_by: wire.item.promoted_by === null ? 'automatic' : 'editor',
                novelty: wire.item.novelty,
                score: wire.item.score,
                receipts: wire.receipts.map((r) => ({
                  source_name: r.source_name,
                  source_url: r.source_url,
                  ingested_at: r.ingested_at.toISOString(),
                  publisher_claimed_time: r.publisher_claimed_at ? r.publisher_claimed_at.toISOString() : null,
                  item_url: r.item_url,
                })),
              }
            : null,
          edit_history: edits.map((e) => ({
            edited_at: isoTime(e.created_at),
            editor: e.editor_id === null ? null : { id: e.editor_id, username: e.editor_username ?? null },
            changes: e.changes as Record<string, { from: unknown; to: unknown }>,
          })),
          meta: { first_seen_basis: 'leviathan_observation' },
        };
      },
    }),
  ];
}
