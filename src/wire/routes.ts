/**
 * Wire ("tsunami") endpoints for editors: the list of ingested wire items and promotion of one item
 * into the editors' queue by hand. Sources are managed with the admin CLI (`npm run cli -- wire ...`).
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { listItems, promoteWireItem } from './queries.js';
import { isoTimestamp, text } from '../platform/http/schemas.js';

const idParam = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().min(1).max(2_147_483_647));

const itemSchema = z.object({
  id: z.number().int().meta({ description: 'Wire item id (the `id` of its news.tsunami event; not an article id)' }),
  title: z.string(),
  url: z.string(),
  canonical_url: z.string(),
  summary: z.string().nullable(),
  source_id: z.number().int().nullable(),
  source_name: z.string(),
  source_url: z.string(),
  ingested_at: isoTimestamp(),
  publisher_claimed_time: isoTimestamp().nullable(),
  receipt_count: z.number().int().meta({ description: 'How many sources carried this URL' }),
  novelty: z.number().nullable(),
  score: z.number().nullable(),
  scored_at: isoTimestamp().nullable(),
  promoted_article_id: z.number().int().nullable(),
  promoted_at: isoTimestamp().nullable(),
});

export function wireRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/wire/items',
      operationId: 'listWireItems',
      summary: 'Wire items, newest first (editors)',
      description: 'state: new (not scored yet), scored (scored, not promoted), promoted, all. Page with before_id = next_before_id.',
      tags: ['wire'],
      auth: 'editor',
      query: z.strictObject({
        state: z.enum(['new', 'scored', 'promoted', 'all']).default('all'),
        source_id: queryInt({ min: 1, max: 2_147_483_647 }),
        limit: queryInt({ min: 1, max: 100, default: 50 }),
        before_id: queryInt({ min: 1, max: 2_147_483_647 }),
      }),
      responses: { 200: { description: 'A page of wire items', schema: z.object({ results: z.array(itemSchema), next_before_id: z.number().int().nullable() }) } },
      async handler(ctx, { query }) {
        const limit = query.limit;
        const rows = await listItems(deps.db, { state: query.state, sourceId: query.source_id, limit, beforeId: query.before_id });
        ctx.body = {
          results: rows.map((r) => ({
            id: r.id,
            title: r.title,
            url: r.url,
            canonical_url: r.normalized_url,
            summary: r.summary,
            source_id: r.source_id,
            source_name: r.source_name,
            source_url: r.source_url,
            ingested_at: r.ingested_at.toISOString(),
            publisher_claimed_time: r.publisher_claimed_at ? r.publisher_claimed_at.toISOString() : null,
            receipt_count: Number(r.receipt_count),
            novelty: r.novelty,
            score: r.score,
            scored_at: r.scored_at ? r.scored_at.toISOString() : null,
            promoted_article_id: r.promoted_article_id,
            promoted_at: r.promoted_at ? r.promoted_at.toISOString() : null,
          })),
          next_before_id: rows.length === limit ? rows[rows.length - 1].id : null,
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/wire/items/:id/promote',
      operationId: 'promoteWireItem',
      summary: "Promote a wire item into the editors' queue (editors)",
      description:
        'Creates a `submitted` article with origin `tsunami` from the wire item (headline: the item title, or `headline` when given), records the editor as promoter, and publishes news.tsunami_promoted (public) and news.submitted (staff). An item is promoted once.',
      tags: ['wire'],
      auth: 'editor',
      params: z.strictObject({ id: idParam }),
      body: z.strictObject({ headline: text('display').trim().min(1).max(300).optional().meta({ description: 'Headline to use instead of the wire title' }) }),
      responses: {
        201: {
          description: 'Promoted',
          schema: z.object({ article_id: z.number().int(), wire_item_id: z.number().int(), status: z.literal('submitted'), origin: z.literal('tsunami'), headline: z.string() }),
        },
        404: { description: 'wire_item_not_found' },
        409: { description: 'wire_item_already_promoted or wire_item_duplicate' },
      },
      async handler(ctx, { params, body }) {
        const r = await promoteWireItem(deps.db, params.id, { promotedBy: ctx.state.user?.id ?? null, headline: body.headline, now: new Date() });
        if (r.outcome === 'not_found') throw new DomainError('wire_item_not_found', `wire item ${params.id} not found`);
        if (r.outcome === 'already_promoted') throw new DomainError('wire_item_already_promoted', `wire item ${params.id} was already promoted`, { article_id: r.articleId });
        if (r.outcome === 'duplicate_url') throw new DomainError('wire_item_duplicate', `an article with this URL exists (${r.articleId})`, { article_id: r.articleId });
        ctx.status = 201;
        ctx.body = { article_id: r.article.id, wire_item_id: r.wireItemId, status: 'submitted', origin: 'tsunami', headline: r.article.headline };
      },
    }),
  ];
}
