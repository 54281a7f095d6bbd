/**
 * POST /stories/{id}/approve (editor role): approve one article of a story and kill the story's
 * other waiting articles as duplicates of it, in one transaction (./story-review-service.ts). The
 * editors' console calls it from a story's group in the queue.
 */
import { z } from 'zod';
import { articleNotFound, editorialResult, getArticleRecord, MAX_DECISION_NOTE, toArticleRecord } from '../articles/index.js';
import type { AppDeps } from '../platform/deps.js';
import { errorResponses } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { approveStoryArticle } from './story-review-service.js';
import { decisionNote } from './schemas.js';

const id = z.number().int().min(1).max(2_147_483_647);

const resultSchema = z
  .object({
    article: editorialResult.shape.article.meta({ description: 'The approved article, its full record' }),
    newly_approved: z.boolean().meta({ description: 'False when it was already published' }),
    killed: z.array(z.number().int()).meta({ description: "The story's other waiting articles, killed as duplicates of it" }),
    skipped: z.array(z.number().int()).meta({ description: 'Waiting members another editor decided meanwhile, left as they are' }),
  })
  .meta({ id: 'StoryReviewResult' });

export function storyReviewRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/stories/:id/approve',
      operationId: 'approveStoryArticle',
      summary: "Approve one article of a story and kill the story's other waiting articles as its duplicates (editors)",
      description: `Body {article_id, note?}: one motion in one transaction. article_id (a member of the story) is approved as POST /news/{id}/approve does (kept as it is when already published); every other article of the story still submitted is killed as POST /news/{id}/kill does, with reason duplicate and duplicate_of article_id, and the note (at most ${MAX_DECISION_NOTE} characters, editors and staff only). Wire items of the story are not queue items and are not touched. All transitions commit or none: a refused approval (409 illegal_transition, 409 sponsored_review_required) kills nothing.`,
      tags: ['editorial'],
      auth: 'editor',
      params: z.strictObject({
        id: z
          .string()
          .regex(/^\d{1,10}$/, 'must be a positive integer')
          .transform(Number)
          .pipe(id),
      }),
      body: z.strictObject({
        article_id: id.meta({ description: 'The article to approve: a member of the story' }),
        note: decisionNote,
      }),
      responses: {
        200: { description: 'done', schema: resultSchema },
        ...errorResponses({
          400: 'validation_failed',
          401: 'not signed in',
          403: 'editor_required',
          404: 'story_not_found or article_not_found',
          409: 'story_members_not_in_story (the article is not in this story), illegal_transition, sponsored_review_required',
        }),
      },
      async handler(ctx, { params, body }) {
        const r = await approveStoryArticle(deps.db, { storyId: params.id, articleId: body.article_id, editorId: ctx.state.user!.id, note: body.note });
        const row = await getArticleRecord(deps.db, r.approved);
        if (!row) throw articleNotFound(r.approved);
        ctx.body = { article: toArticleRecord(row, { signedIn: true, staff: true }), newly_approved: r.newlyApproved, killed: r.killed, skipped: r.skipped };
      },
    }),
  ];
}
