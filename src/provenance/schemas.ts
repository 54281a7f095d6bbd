/** Request and response schemas of the provenance endpoints (they are also the OpenAPI document's). */
import { z } from 'zod';
import { isoTimestamp, text } from '../platform/http/schemas.js';
import { normalizeUrl } from '../platform/url/normalize.js';
import { MAX_CHECK_TEXT_LENGTH, MAX_CHECK_URL_LENGTH } from './rules/settings.js';

const matchSchema = z.object({
  news_id: z.number().int().meta({ description: 'Article id' }),
  headline: z.string(),
  source: z.string(),
  canonical_url: z.string().meta({ description: 'The article URL in normalised form' }),
  similarity: z.number().meta({ description: '1.0 for a URL match or identical normalised headlines' }),
  method: z.enum(['url', 'headline']),
  seen_at: isoTimestamp('When this service first observed the article (its submission time)'),
  story_id: z.number().int().nullable().meta({ description: "The article's story (GET /api/v1/stories/{id}/); null while it has none" }),
});

const storySchema = z
  .object({
    id: z.number().int().meta({ description: 'GET /api/v1/stories/{id}/' }),
    first_seen_at: isoTimestamp('When the story was first seen'),
    member_count: z.number().int().meta({ description: 'Articles and wire items in the story, syndicated copies included' }),
    source_count: z.number().int().meta({ description: 'Independent sources among them' }),
  })
  .meta({ id: 'ProvenanceStory' });

const receiptSchema = z.object({
  source_name: z.string(),
  source_url: z.string().meta({ description: 'The wire source (feed URL) that carried the item' }),
  ingested_at: isoTimestamp('When we ingested it (our observation)'),
  publisher_claimed_time: isoTimestamp().nullable().meta({ description: "The feed's own date for the item; not authoritative" }),
  item_url: z.string().meta({ description: 'The item link as that source published it' }),
});

export const checkResultSchema = z
  .object({
    verdict: z.enum(['new', 'known', 'duplicate', 'stale']),
    match_count: z.number().int(),
    first_seen: isoTimestamp().nullable().meta({ description: 'Earliest of our observations (matches and wire receipts); null when none' }),
    latest_seen: isoTimestamp().nullable(),
    normalized_url: z.string().nullable().meta({ description: 'The normalised form of `url` (null when only text was given)' }),
    matches: z.array(matchSchema),
    tsunami_receipts: z.array(receiptSchema),
    story: storySchema
      .nullable()
      .meta({ description: 'The story of the best match that has one, else of a wire item carrying the URL; null when none. Never changes the verdict.' }),
    meta: z.object({
      first_seen_basis: z.literal('leviathan_observation'),
      lookback_days: z.number().int(),
      methods: z.array(z.enum(['url', 'headline'])),
      headline_threshold: z.number(),
      checked_at: isoTimestamp(),
    }),
  })
  .meta({ id: 'ProvenanceCheckResult' });

export const pendingSchema = z
  .object({
    status: z.literal('pending'),
    job_id: z.string(),
    poll_url: z.string().meta({ description: 'GET this URL until it answers 200 with the result' }),
  })
  .meta({ id: 'ProvenanceCheckPending' });

export const checkBody = z
  .strictObject({
    url: text()
      .trim()
      .min(1)
      .max(MAX_CHECK_URL_LENGTH)
      .refine((u) => normalizeUrl(u) !== null, 'must be an absolute http(s) URL')
      .optional()
      .meta({ description: 'The URL to check (primary signal)' }),
    text: text()
      .trim()
      .min(1)
      .max(MAX_CHECK_TEXT_LENGTH)
      .optional()
      .meta({ description: 'A headline or short text; matched by headline similarity when no URL is given (or the URL matches nothing)' }),
  })
  .superRefine((b, ctx) => {
    if (b.url === undefined && b.text === undefined) ctx.addIssue({ code: 'custom', message: 'url or text is required (at least one)', path: [] });
  });

export const searchResultsSchema = z.object({
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
});

export const receiptsSchema = z
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
  .meta({ id: 'ProvenanceReceipts' });
