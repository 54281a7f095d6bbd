/**
 * Yaps (comments): post, list, vote. A yap starts at the author's account-type score (human +1,
 * cyborg 0, bot -1) and votes add to it.
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { COMMON_YAP_TAGS, MAX_YAP_LENGTH } from './rules/yap.js';
import { errorResponses } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';
import { toYap, yapPage } from './reads.js';
import { postYap, voteOnYap } from './yap-service.js';
import { DEFAULT_PER_PAGE, idParam, MAX_PAGE, MAX_PER_PAGE, weight, yapPageSchema, yapSchema, yapTags, yapVoteResult } from './schemas.js';

function postYapRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/news/:id/post_yap',
    operationId: 'postYap',
    summary: 'Post a yap (comment) on an article',
    description: `\`text\`: 1 to ${MAX_YAP_LENGTH} characters after trimming. \`tags\`: up to 5 slugs (lower-cased, de-duplicated); common values ${COMMON_YAP_TAGS.join(', ')}. The yap starts at score +1 (human author), 0 (cyborg) or -1 (bot). Killed and retracted articles answer 409 article_closed.`,
    tags: ['yaps'],
    auth: 'user',
    params: idParam,
    body: z.strictObject({
      text: text('display')
        .transform((v) => v.trim())
        .pipe(z.string().min(1, 'must not be empty').max(MAX_YAP_LENGTH, `must be at most ${MAX_YAP_LENGTH} characters`)),
      tags: yapTags.optional(),
    }),
    responses: {
      201: { description: 'created', schema: yapSchema.extend({ success: z.literal(true) }).meta({ id: 'YapResult' }) },
      ...errorResponses({ 401: 'not signed in', 404: 'article_not_found', 409: 'article_closed' }),
    },
    async handler(ctx, { params, body }) {
      const yap = await postYap(deps, { articleId: params.id, userId: ctx.state.user!.id, text: body.text, tags: body.tags ?? [] });
      ctx.status = 201;
      ctx.body = { success: true, ...toYap(yap) };
    },
  });
}

function listYapsRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/news/:id/list_yaps',
    operationId: 'listYaps',
    summary: 'The yaps of an article (paged)',
    description: `\`sort\`: top (default; score desc, then oldest first), new (newest first) or old (oldest first). \`per_page\` 1 to ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}), \`page\` from 1. Paged envelope results/count/next/previous. Signed-in callers also get my_vote on each yap.`,
    tags: ['yaps'],
    params: idParam,
    query: z.strictObject({
      sort: z.enum(['top', 'new', 'old']).default('top'),
      page: queryInt({ min: 1, max: MAX_PAGE, default: 1 }),
      per_page: queryInt({ min: 1, max: MAX_PER_PAGE, default: DEFAULT_PER_PAGE }),
    }),
    responses: { 200: { description: 'page', schema: yapPageSchema }, ...errorResponses({ 404: 'article_not_found' }) },
    async handler(ctx, { params, query }) {
      ctx.body = await yapPage(deps, ctx, ctx, params.id, query);
    },
  });
}

function voteYapRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/news/:id/yaps/:yap_id/vote',
    operationId: 'voteYap',
    summary: 'Vote on a yap: 1 up, -1 down, 0 clear',
    description:
      "One vote per user per yap, added to the yap's base score. Response {yap_id, weight (the caller's vote now), vote_score, score}. Authors cannot vote on their own yaps (403 cannot_vote_own_yap); yaps of killed or retracted articles answer 409 article_closed.",
    tags: ['yaps'],
    auth: 'user',
    params: idParam.extend({ yap_id: idParam.shape.id }),
    body: z.strictObject({ weight }),
    responses: {
      200: { description: 'vote stored', schema: yapVoteResult },
      ...errorResponses({ 401: 'not signed in', 403: 'cannot_vote_own_yap', 404: 'yap_not_found', 409: 'article_closed' }),
    },
    async handler(ctx, { params, body }) {
      ctx.body = await voteOnYap(deps, { articleId: params.id, yapId: params.yap_id, userId: ctx.state.user!.id, weight: body.weight });
    },
  });
}

export function yapRoutes(deps: AppDeps): RouteDef[] {
  return [postYapRoute(deps), listYapsRoute(deps), voteYapRoute(deps)];
}
