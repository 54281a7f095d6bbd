/**
 * Editors' use cases on stories: merge one story into another and split members out of a story
 * into a new one (POST /stories/{id}/merge and /split). Each runs in one transaction under the
 * assigner's advisory lock (no assignment interleaves) with the stories' rows locked: it moves the
 * members, their lookup keys and their items' story_id, recomputes copies, counts, times and the
 * representative headline, locks the stories it leaves (the assigner then never moves their
 * members again), writes the story_edits row (the moderation log's entry) and records one
 * story.assigned event per moved item through the event log. Rules: docs/stories.md "Editors".
 */
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';
import {
  insertStoryEdit,
  inheritSeparations,
  lockStories,
  lockStory,
  memberRefs,
  moveMembers,
  rebuildKeys,
  refreshCopies,
  separate,
  separated,
  storyHeadline,
  type MemberRef,
} from './editing-queries.js';
import { insertStory, lockAssigner, refreshStory } from './queries.js';

interface EditResult {
  editId: number;
  storyId: number;
  otherStoryId: number;
  moved: MemberRef[];
  forced: boolean;
  createdAt: Date;
}

const notFound = (id: number) => new DomainError('story_not_found', `no story with id ${id}`, { story_id: id });

/** Recompute what a story's members determine after an edit, and lock it against the assigner. */
async function settle(trx: Db, storyId: number): Promise<void> {
  await refreshCopies(trx, storyId);
  await refreshStory(trx, storyId);
  await rebuildKeys(trx, storyId);
  await lockStory(trx, storyId);
}

function movedEvents(moved: readonly MemberRef[], from: number, to: number, reason: 'merge' | 'split', editId: number) {
  return moved.map((m) =>
    internalEvent('story.assigned', m.kind === 'article' ? m.id : null, { kind: m.kind, item_id: m.id, story_id: to, previous_story_id: from, reason, story_edit_id: editId }),
  );
}

/**
 * Merge story `otherId` into story `storyId`: every member of the other story joins this one and
 * the other story is deleted. 409 story_merge_self for one story; 404 story_not_found for either
 * id; 409 story_merge_separated when an editor split the two apart, and 409 story_locked when the
 * story merged away is locked (an editor settled its members: dissolving it moves them all),
 * unless `force`. Merging into a locked story is allowed: new coverage joins it, as the assigner's
 * new items may.
 */
export async function mergeStories(db: Db, input: { storyId: number; otherId: number; editorId: number; note: string | null; force: boolean }): Promise<EditResult> {
  const { storyId, otherId } = input;
  if (storyId === otherId) throw new DomainError('story_merge_self', `story ${storyId} cannot be merged into itself`, { story_id: storyId });
  return db.transaction().execute(async (trx) => {
    await lockAssigner(trx);
    const stories = await lockStories(trx, [storyId, otherId]);
    for (const id of [storyId, otherId]) if (!stories.has(id)) throw notFound(id);
    const apart = await separated(trx, storyId, otherId);
    if (apart && !input.force) {
      throw new DomainError('story_merge_separated', `an editor split stories ${storyId} and ${otherId} apart; send "force": true to merge them again`, {
        story_id: storyId,
        other_story_id: otherId,
      });
    }
    const settled = stories.get(otherId)!.locked;
    if (settled && !input.force) {
      throw new DomainError('story_locked', `an editor locked story ${otherId}; merge story ${storyId} into it, or send "force": true to dissolve it`, {
        story_id: storyId,
        locked_story_id: otherId,
      });
    }
    const moved = await memberRefs(trx, otherId);
    await moveMembers(trx, otherId, storyId, null);
    await inheritSeparations(trx, otherId, storyId);
    await refreshStory(trx, otherId);
    await settle(trx, storyId);
    const edit = await insertStoryEdit(trx, {
      action: 'merge',
      storyId,
      otherStoryId: otherId,
      headline: (await storyHeadline(trx, storyId))!,
      otherHeadline: stories.get(otherId)!.headline,
      items: moved,
      note: input.note,
      forced: apart || settled,
      editorId: input.editorId,
    });
    await recordEvents(trx, movedEvents(moved, otherId, storyId, 'merge', edit.id));
    return { editId: edit.id, storyId, otherStoryId: otherId, moved, forced: apart || settled, createdAt: edit.created_at };
  });
}

const refKey = (r: MemberRef) => `${r.kind}:${r.id}`;

/**
 * Split `items` out of story `storyId` into a new story. The two are then separated: merging them
 * again needs `force`. 404 story_not_found; 409 story_members_not_in_story (details.items) when an
 * item is not a member; 409 story_split_all when every member would leave.
 */
export async function splitStory(db: Db, input: { storyId: number; items: MemberRef[]; editorId: number; note: string | null }): Promise<EditResult> {
  const { storyId } = input;
  return db.transaction().execute(async (trx) => {
    await lockAssigner(trx);
    const stories = await lockStories(trx, [storyId]);
    if (!stories.has(storyId)) throw notFound(storyId);
    const members = await memberRefs(trx, storyId);
    const inStory = new Set(members.map(refKey));
    const missing = input.items.filter((i) => !inStory.has(refKey(i)));
    if (missing.length)
      throw new DomainError('story_members_not_in_story', `${missing.length} of the items are not members of story ${storyId}`, { story_id: storyId, items: missing });
    if (input.items.length >= members.length) throw new DomainError('story_split_all', `a split must leave at least one member in story ${storyId}`, { story_id: storyId });
    const picked = new Set(input.items.map(refKey));
    const moved = members.filter((m) => picked.has(refKey(m)));
    const newId = await insertStory(trx, stories.get(storyId)!.headline, new Date());
    await moveMembers(trx, storyId, newId, moved);
    await settle(trx, storyId);
    await settle(trx, newId);
    await separate(trx, storyId, newId);
    const edit = await insertStoryEdit(trx, {
      action: 'split',
      storyId,
      otherStoryId: newId,
      headline: (await storyHeadline(trx, storyId))!,
      otherHeadline: (await storyHeadline(trx, newId))!,
      items: moved,
      note: input.note,
      forced: false,
      editorId: input.editorId,
    });
    await recordEvents(trx, movedEvents(moved, storyId, newId, 'split', edit.id));
    return { editId: edit.id, storyId, otherStoryId: newId, moved, forced: false, createdAt: edit.created_at };
  });
}
