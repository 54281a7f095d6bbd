/**
 * SQL of editors' merges and splits (Kysely only): locking the stories, moving members with their
 * lookup keys and the items' story_id, the edit log and the separations of split stories.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import type { ItemFeatures } from './rules/features.js';
import { copyFlags } from './rules/copies.js';
import { latestKeys } from './rules/lookup.js';
import { replaceKeys, type ItemKind } from './queries.js';

export interface MemberRef {
  kind: ItemKind;
  id: number;
}

/** The stories' rows locked for the transaction, by id (a missing id is absent from the map). */
export async function lockStories(trx: Db, ids: readonly number[]) {
  const rows = await trx
    .selectFrom('stories')
    .select(['id', 'headline', 'locked'])
    .where('id', 'in', [...ids])
    .orderBy('id')
    .forUpdate()
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** The story's members (kind and id), in time order. */
export async function memberRefs(trx: Db, storyId: number): Promise<MemberRef[]> {
  const rows = await trx
    .selectFrom('story_members')
    .select(['item_kind', 'item_id'])
    .where('story_id', '=', storyId)
    .orderBy('seen_at')
    .orderBy('item_kind')
    .orderBy('item_id')
    .execute();
  return rows.map((r) => ({ kind: r.item_kind as ItemKind, id: r.item_id }));
}

const refKey = (r: MemberRef) => `${r.kind}:${r.id}`;

/** Move these members (all of the story's when `items` is null) from one story to another, and their items' story_id. */
export async function moveMembers(trx: Db, from: number, to: number, items: readonly MemberRef[] | null): Promise<void> {
  const pick = items === null ? undefined : items.map(refKey);
  let q = trx.updateTable('story_members').set({ story_id: to }).where('story_id', '=', from);
  if (pick) q = q.where(sql<string>`item_kind || ':' || item_id`, 'in', pick);
  await q.execute();
  const ids = (kind: ItemKind) => (items === null ? null : items.filter((i) => i.kind === kind).map((i) => i.id));
  const articles = ids('article');
  const wire = ids('wire');
  if (articles === null || articles.length) {
    let a = trx.updateTable('articles').set({ story_id: to }).where('story_id', '=', from);
    if (articles) a = a.where('id', 'in', articles);
    await a.execute();
  }
  if (wire === null || wire.length) {
    let w = trx.updateTable('wire_items').set({ story_id: to }).where('story_id', '=', from);
    if (wire) w = w.where('id', 'in', wire);
    await w.execute();
  }
}

/** Rebuild a story's lookup keys from its members' features (copy keys and words, latest time each). */
export async function rebuildKeys(trx: Db, storyId: number): Promise<void> {
  const members = await trx.selectFrom('story_members').select(['features', 'seen_at']).where('story_id', '=', storyId).execute();
  await replaceKeys(trx, [storyId], latestKeys(members.map((m) => ({ storyId, seenAt: m.seen_at, features: m.features as ItemFeatures }))));
}

export async function lockStory(trx: Db, storyId: number): Promise<void> {
  await trx.updateTable('stories').set({ locked: true, updated_at: new Date() }).where('id', '=', storyId).execute();
}

/** Whether an editor split these two stories apart (and no forced merge joined them since). */
export async function separated(trx: Db, a: number, b: number): Promise<boolean> {
  const r = await trx.selectFrom('story_separations').select('story_id').where('story_id', '=', a).where('other_story_id', '=', b).executeTakeFirst();
  return r !== undefined;
}

/** Record that an editor split `a` and `b` apart (both ways). */
export async function separate(trx: Db, a: number, b: number): Promise<void> {
  await trx
    .insertInto('story_separations')
    .values([
      { story_id: a, other_story_id: b },
      { story_id: b, other_story_id: a },
    ])
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** A merge of `from` into `to`: `to` inherits `from`'s separations; theirs with each other go. */
export async function inheritSeparations(trx: Db, from: number, to: number): Promise<void> {
  await sql`DELETE FROM story_separations WHERE (story_id = ${from} AND other_story_id = ${to}) OR (story_id = ${to} AND other_story_id = ${from})`.execute(trx);
  await sql`
    INSERT INTO story_separations (story_id, other_story_id)
    SELECT ${to}::int, other_story_id FROM story_separations WHERE story_id = ${from}
    UNION
    SELECT story_id, ${to}::int FROM story_separations WHERE other_story_id = ${from}
    ON CONFLICT DO NOTHING`.execute(trx);
}

interface StoryEditRow {
  action: 'merge' | 'split';
  storyId: number;
  otherStoryId: number;
  headline: string;
  otherHeadline: string;
  items: MemberRef[];
  note: string | null;
  forced: boolean;
  editorId: number;
}

export async function insertStoryEdit(trx: Db, e: StoryEditRow): Promise<{ id: number; created_at: Date }> {
  return trx
    .insertInto('story_edits')
    .values({
      action: e.action,
      story_id: e.storyId,
      other_story_id: e.otherStoryId,
      headline: e.headline,
      other_headline: e.otherHeadline,
      items: JSON.stringify(e.items),
      note: e.note,
      forced: e.forced,
      editor_id: e.editorId,
    })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
}

export async function storyHeadline(trx: Db, storyId: number): Promise<string | undefined> {
  const r = await trx.selectFrom('stories').select('headline').where('id', '=', storyId).executeTakeFirst();
  return r?.headline;
}

/** Recompute the story's copy flags from its members' features (rules/copies.ts); writes only the changed ones. */
export async function refreshCopies(trx: Db, storyId: number): Promise<void> {
  const rows = await trx
    .selectFrom('story_members')
    .select(['item_kind', 'item_id', 'features', 'copy_of_member'])
    .where('story_id', '=', storyId)
    .orderBy('seen_at')
    .orderBy('item_kind')
    .orderBy('item_id')
    .execute();
  const next = copyFlags(rows.map((r) => r.features as ItemFeatures));
  for (const [i, r] of rows.entries()) {
    if (next[i] === r.copy_of_member) continue;
    await trx.updateTable('story_members').set({ copy_of_member: next[i]! }).where('item_kind', '=', r.item_kind).where('item_id', '=', r.item_id).execute();
  }
}
