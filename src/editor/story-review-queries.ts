/** SQL of reviewing the queue by story (Kysely only): the story, the chosen article, the story's waiting articles. */
import type { Db } from '../platform/db.js';

export async function storyExists(db: Db, storyId: number): Promise<boolean> {
  return (await db.selectFrom('stories').select('id').where('id', '=', storyId).executeTakeFirst()) !== undefined;
}

export async function articleStory(db: Db, id: number) {
  return db.selectFrom('articles').select(['id', 'story_id', 'status']).where('id', '=', id).executeTakeFirst();
}

/** The story's articles waiting in the queue (submitted; paid ads are reviewed elsewhere), by id. */
export async function waitingMembers(db: Db, storyId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('articles')
    .select('id')
    .where('story_id', '=', storyId)
    .where('status', '=', 'submitted')
    .where('origin', '<>', 'x402_ad')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}
