/**
 * The stories API: GET /stories/ (paged, most recently active first) and GET /stories/{id}/ (the
 * story with its members in time order). Free to read, under the same daily quota as the feed.
 */
import { z } from 'zod';
import { feedFilterParams, MAX_PAGE, MAX_PER_PAGE, DEFAULT_PER_PAGE, pageLinks } from '../articles/index.js';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { errorResponses as errors } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { storyDetailSchema, storyPageSchema } from './schemas.js';
import { readStory, readStoryPage } from './service.js';
import { storyListFilter } from './list-query.js';

const MAX_MIN_SOURCES = 1000;

const idParam = z
  .string()
  .regex(/^\d{1,10}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().min(1).max(2_147_483_647));

function listStoriesRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/stories/',
    operationId: 'listStories',
    summary: 'Stories: articles and wire items grouped by the event they report (paged)',
    description:
      'Most recently active first (last_seen_at, then id, descending). since: stories seen at or after it (last_seen_at); until: stories first seen before it. tag / token_symbol: stories with an article carrying one of them. min_sources: at least this many independent sources. Unknown parameters and out-of-range values are 400 validation_failed naming the parameter.',
    tags: ['stories'],
    query: z.strictObject({
      page: queryInt({ min: 1, max: MAX_PAGE, default: 1 }),
      per_page: queryInt({ min: 1, max: MAX_PER_PAGE, default: DEFAULT_PER_PAGE }),
      since: feedFilterParams.since,
      until: feedFilterParams.until,
      tag: feedFilterParams.tag,
      token_symbol: feedFilterParams.token_symbol,
      min_sources: queryInt({ min: 1, max: MAX_MIN_SOURCES }),
    }),
    responses: { 200: { description: 'page', schema: storyPageSchema }, ...errors({ 400: 'validation_failed naming the parameter' }) },
    async handler(ctx, { query }) {
      const page = await readStoryPage(deps.db, storyListFilter(query));
      ctx.body = { count: page.count, ...pageLinks(ctx, deps.config.PUBLIC_BASE_URL, query.page, query.per_page, page.count), results: page.results };
    },
  });
}

function getStoryRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/stories/:id/',
    operationId: 'getStory',
    summary: 'One story with its members in time order',
    description: 'Members are wire items and published articles, oldest first; `first` marks the one that reported the story first. 404 story_not_found for an unknown id.',
    tags: ['stories'],
    params: z.strictObject({ id: idParam }),
    responses: { 200: { description: 'the story', schema: storyDetailSchema }, ...errors({ 400: 'validation_failed', 404: 'story_not_found' }) },
    async handler(ctx, { params }) {
      const story = await readStory(deps.db, params.id);
      if (!story) throw new DomainError('story_not_found', `no story with id ${params.id}`);
      ctx.body = story;
    },
  });
}

export function storyRoutes(deps: AppDeps): RouteDef[] {
  return [listStoriesRoute(deps), getStoryRoute(deps)];
}
