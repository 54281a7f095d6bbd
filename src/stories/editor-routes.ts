/**
 * Editors' story actions (editor role): POST /stories/{id}/merge and POST /stories/{id}/split.
 * Each validates, calls the use case of ./editing-service.ts and answers with the edit and the
 * stories as they are now. Rules: docs/stories.md "Editors".
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { errorResponses } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { text } from '../platform/http/schemas.js';
import { mergeStories, splitStory } from './editing-service.js';
import { storyDetailSchema } from './schemas.js';
import { readStory } from './service.js';

const MAX_NOTE = 1000;
const MAX_SPLIT_ITEMS = 500;

const id = z.number().int().min(1).max(2_147_483_647);
const idParam = z.strictObject({
  id: z
    .string()
    .regex(/^\d{1,10}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(id),
});
const note = text()
  .trim()
  .max(MAX_NOTE, `at most ${MAX_NOTE} characters`)
  .nullable()
  .optional()
  .transform((v) => (v ? v : null))
  .meta({ description: "The editor's note, shown in the moderation log to editors and staff only" });
const memberRef = z.strictObject({ kind: z.enum(['article', 'wire']), id });

const editSchema = z
  .object({
    id: z.number().int().meta({ description: 'The moderation log entry of this edit (GET /api/v1/modlog/)' }),
    action: z.enum(['merge', 'split']),
    story_id: z.number().int().meta({ description: 'The story kept: the merge target, or the story split' }),
    other_story_id: z.number().int().meta({ description: 'merge: the story merged away (now deleted); split: the new story' }),
    items: z.array(z.object({ kind: z.enum(['article', 'wire']), id: z.number().int() })).meta({ description: 'The members moved' }),
    forced: z.boolean().meta({ description: 'A merge with force: of two stories an editor had split apart, or dissolving a locked story' }),
    created_at: z.string(),
  })
  .meta({ id: 'StoryEdit' });

const editResult = z
  .object({
    edit: editSchema,
    story: storyDetailSchema.meta({ description: 'The story kept, as it is now (locked)' }),
    new_story: storyDetailSchema.nullable().meta({ description: 'split: the new story (locked); merge: null' }),
  })
  .meta({ id: 'StoryEditResult' });

const editErrors = (conflicts: string) =>
  errorResponses({ 400: 'validation_failed', 401: 'not signed in', 403: 'editor_required', 404: 'story_not_found (details.story_id names which)', 409: conflicts });

type Edit = Awaited<ReturnType<typeof mergeStories>>;

async function answer(deps: AppDeps, action: 'merge' | 'split', e: Edit) {
  const [story, other] = await Promise.all([readStory(deps.db, e.storyId), action === 'split' ? readStory(deps.db, e.otherStoryId) : null]);
  return {
    edit: { id: e.editId, action, story_id: e.storyId, other_story_id: e.otherStoryId, items: e.moved, forced: e.forced, created_at: e.createdAt.toISOString() },
    story: story!,
    new_story: other ?? null,
  };
}

function mergeRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/stories/:id/merge',
    operationId: 'mergeStories',
    summary: 'Merge another story into this one (editors)',
    description:
      'Body {story_id, note?, force?}: every member of story `story_id` joins this story and that story is deleted; its articles and wire items take this story_id. Counts, first/last seen and the headline are recomputed; the story is locked (the assigner never moves its members out again; new items may still join it). Listed in the moderation log as story_merge. 409 story_merge_self for the same id; 409 story_merge_separated when an editor split the two apart, and 409 story_locked when story `story_id` is locked (an earlier merge or split settled its members; merge into it instead), unless force is true. Merging into a locked story needs no force.',
    tags: ['stories'],
    auth: 'editor',
    params: idParam,
    body: z.strictObject({
      story_id: id.meta({ description: 'The story to merge into this one' }),
      note,
      force: z.boolean().default(false).meta({ description: 'Merge even though an editor split these two stories apart, or story `story_id` is locked' }),
    }),
    responses: { 200: { description: 'merged', schema: editResult }, ...editErrors('story_merge_self, story_merge_separated, story_locked') },
    async handler(ctx, { params, body }) {
      const e = await mergeStories(deps.db, { storyId: params.id, otherId: body.story_id, editorId: ctx.state.user!.id, note: body.note, force: body.force });
      ctx.body = await answer(deps, 'merge', e);
    },
  });
}

function splitRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/stories/:id/split',
    operationId: 'splitStory',
    summary: 'Split members out of this story into a new story (editors)',
    description: `Body {items: [{kind: article|wire, id}] (1 to ${MAX_SPLIT_ITEMS}, duplicates ignored), note?}: the items leave this story for a new one, their story_id changes. Both stories are recomputed and locked, and separated: a later merge of the two needs force. Listed in the moderation log as story_split. 409 story_members_not_in_story (details.items) when an item is not a member; 409 story_split_all when no member would stay.`,
    tags: ['stories'],
    auth: 'editor',
    params: idParam,
    body: z.strictObject({
      items: z
        .array(memberRef)
        .min(1, 'name at least one member')
        .max(MAX_SPLIT_ITEMS, `at most ${MAX_SPLIT_ITEMS} members`)
        .transform((a) => [...new Map(a.map((m) => [`${m.kind}:${m.id}`, m])).values()]),
      note,
    }),
    responses: { 200: { description: 'split', schema: editResult }, ...editErrors('story_members_not_in_story, story_split_all') },
    async handler(ctx, { params, body }) {
      const e = await splitStory(deps.db, { storyId: params.id, items: body.items, editorId: ctx.state.user!.id, note: body.note });
      ctx.body = await answer(deps, 'split', e);
    },
  });
}

export function storyEditorRoutes(deps: AppDeps): RouteDef[] {
  return [mergeRoute(deps), splitRoute(deps)];
}
