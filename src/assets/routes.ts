/**
 * Asset endpoints: registry search and an asset's page (public), editors' tag corrections on an
 * article, and staff changes to the registry. Each validates, calls the service (or a plain read)
 * and answers.
 */
import { z } from 'zod';
import { ASSET_ID_PATTERN } from './rules/registry.js';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { errorResponses } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';
import { assetMindshareSchema } from './mindshare-schemas.js';
import { getAsset } from './queries.js';
import { answerConditional, PUBLIC_REVALIDATE } from '../platform/http/conditional.js';
import { assetPageEntry, assetSearch } from './read-service.js';
import { sharedRegistry } from './registry-cache.js';
import { addAmbiguousWord, addAsset, setEditorTag, updateAsset } from './service.js';

const assetId = z.string().max(100, 'at most 100 characters').regex(ASSET_ID_PATTERN, 'must be an asset id: lower-case letters, digits and single hyphens');
const articleId = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().min(1).max(2_147_483_647));
const caip19 = z
  .string()
  .max(200)
  .regex(
    /^(eip155:\d{1,10}\/erc20:0x[0-9a-fA-F]{40}|solana:[1-9A-HJ-NP-Za-km-z]{32}\/token:[1-9A-HJ-NP-Za-km-z]{32,44})$/,
    'must be a CAIP-19 id: eip155:<chain>/erc20:0x<40 hex> or solana:<genesis>/token:<mint>',
  )
  .transform((v) => (v.startsWith('eip155:') ? v.toLowerCase() : v));

const assetSchema = z
  .object({
    id: z.string(),
    symbol: z.string(),
    name: z.string(),
    aliases: z.array(z.string()),
    ambiguous: z.boolean().meta({ description: 'Its ticker is an everyday word: tagged only with context' }),
    source: z.string().meta({ description: 'curated, staff, cryptocurrency-icons, metamask or token-list' }),
    deployments: z.array(z.string()).meta({ description: 'CAIP-19 ids of its contracts (eip155:1/erc20:0x...)' }),
  })
  .meta({ id: 'Asset' });
const summarySchema = z.object({ id: z.string(), symbol: z.string(), name: z.string(), aliases: z.array(z.string()) }).meta({ id: 'AssetSummary' });
const tagsResult = z.object({ article_id: z.number().int(), assets: z.array(z.string()).meta({ description: 'The article’s asset ids after the change, by salience' }) });

async function assetOr404(deps: AppDeps, id: string) {
  const a = await getAsset(deps.db, id);
  if (!a) throw new DomainError('asset_not_found', `asset ${id} not found`);
  return a;
}

function searchRoute(deps: AppDeps) {
  return defineRoute({
    method: 'get',
    path: '/assets/',
    operationId: 'searchAssets',
    summary: 'Search the asset registry',
    description: 'q matches an id or symbol exactly (first), then name substrings and symbol or alias prefixes, case-insensitively; curated assets before package data.',
    tags: ['assets'],
    query: z.strictObject({ q: text().trim().min(1, 'must not be empty').max(100, 'at most 100 characters'), limit: queryInt({ min: 1, max: 50, default: 20 }) }),
    responses: { 200: { description: 'Matching assets', schema: z.object({ results: z.array(summarySchema) }) }, ...errorResponses({ 400: 'validation_failed' }) },
    async handler(ctx, { query }) {
      ctx.body = await assetSearch(deps, query.q, query.limit);
    },
  });
}

function getRoute(deps: AppDeps) {
  return defineRoute({
    method: 'get',
    path: '/assets/:id/',
    operationId: 'getAsset',
    summary: 'One asset, its deployments and its mindshare',
    description:
      'mindshare comes from the asset-mindshare job’s stored result (docs/assets.md): its share of stories, articles and engagement over 24 h, 7 d and 30 d. Served from the process’s memory: a registry change shows within a few seconds, a new mindshare computation within 30 s. The response has a strong ETag (If-None-Match -> 304 with no body) and Cache-Control public, max-age=0, must-revalidate.',
    tags: ['assets'],
    params: z.strictObject({ id: assetId }),
    responses: {
      200: { description: 'The asset', schema: assetSchema.extend({ mindshare: assetMindshareSchema }).meta({ id: 'AssetPage' }) },
      304: { description: 'not modified (If-None-Match matched); no body' },
      ...errorResponses({ 404: 'asset_not_found' }),
    },
    async handler(ctx, { params }) {
      const entry = await assetPageEntry(deps, params.id);
      ctx.type = 'application/json';
      if (answerConditional(ctx, { etag: entry.etag, cacheControl: PUBLIC_REVALIDATE })) return;
      ctx.body = entry.body;
    },
  });
}

function tagRoute(deps: AppDeps, remove: boolean) {
  return defineRoute({
    method: remove ? 'delete' : 'post',
    path: remove ? '/news/:id/assets/:asset_id/' : '/news/:id/assets/',
    operationId: remove ? 'removeArticleAsset' : 'addArticleAsset',
    summary: remove ? 'Remove an asset tag from an article (editors)' : 'Add an asset tag to an article (editors)',
    description: 'The tag becomes the editor’s: re-tagging by the worker keeps it (a removal stays removed). Recorded in the article’s edit history and the moderation log.',
    tags: ['assets'],
    auth: 'editor',
    params: remove ? z.strictObject({ id: articleId, asset_id: assetId }) : z.strictObject({ id: articleId }),
    body: remove ? undefined : z.strictObject({ asset: assetId }),
    responses: {
      200: { description: 'The article’s assets', schema: tagsResult },
      ...errorResponses({ 401: 'not signed in', 403: 'editor_required', 404: 'article_not_found or asset_not_found' }),
    },
    async handler(ctx, { params, body }) {
      const p = params as { id: number; asset_id?: string };
      const asset = remove ? p.asset_id! : (body as { asset: string }).asset;
      const assets = await setEditorTag(deps.db, { articleId: p.id, assetId: asset, editorId: ctx.state.user!.id, remove });
      ctx.body = { article_id: p.id, assets };
    },
  });
}

const newAssetBody = z.strictObject({
  id: assetId,
  symbol: text().trim().min(1).max(40),
  name: text().trim().min(1).max(200),
  aliases: z.array(text().trim().min(1).max(200)).max(50).default([]),
  ambiguous: z.boolean().default(false),
  deployments: z.array(caip19).max(100).default([]),
});

function staffRoutes(deps: AppDeps): RouteDef[] {
  const staffErrors = errorResponses({ 401: 'not signed in', 403: 'staff_required' });
  return [
    defineRoute({
      method: 'post',
      path: '/assets/',
      operationId: 'addAsset',
      summary: 'Add an asset to the registry (staff)',
      tags: ['assets'],
      auth: 'staff',
      body: newAssetBody,
      responses: { 201: { description: 'The asset', schema: assetSchema }, ...staffErrors, ...errorResponses({ 409: 'asset_exists' }) },
      async handler(ctx, { body }) {
        await addAsset(deps.db, sharedRegistry, body);
        ctx.status = 201;
        ctx.body = await assetOr404(deps, body.id);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/assets/:id/',
      operationId: 'updateAsset',
      summary: 'Add aliases to an asset, or mark its ticker ambiguous (staff)',
      tags: ['assets'],
      auth: 'staff',
      params: z.strictObject({ id: assetId }),
      body: z.strictObject({ aliases: z.array(text().trim().min(1).max(200)).max(50).optional(), ambiguous: z.boolean().optional() }),
      responses: { 200: { description: 'The asset', schema: assetSchema }, ...staffErrors, ...errorResponses({ 404: 'asset_not_found' }) },
      async handler(ctx, { params, body }) {
        await updateAsset(deps.db, sharedRegistry, params.id, body);
        ctx.body = await assetOr404(deps, params.id);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assets/ambiguous-words/',
      operationId: 'addAmbiguousWord',
      summary: 'Add a word that needs context to count as a ticker or name (staff)',
      tags: ['assets'],
      auth: 'staff',
      body: z.strictObject({
        word: z
          .string()
          .trim()
          .min(1)
          .max(40)
          .regex(/^[\p{L}\p{N}]+$/u, 'must be one word of letters and digits'),
      }),
      responses: { 200: { description: 'Added (or already there)', schema: z.object({ word: z.string() }) }, ...staffErrors },
      async handler(ctx, { body }) {
        await addAmbiguousWord(deps.db, sharedRegistry, body.word);
        ctx.body = { word: body.word.toLowerCase() };
      },
    }),
  ];
}

export function assetRoutes(deps: AppDeps): RouteDef[] {
  return [searchRoute(deps), getRoute(deps), tagRoute(deps, false), tagRoute(deps, true), ...staffRoutes(deps)];
}
