/**
 * SQL of wire promotion by corroboration (src/stories/corroboration.ts): a story's source count,
 * whether it already has a queue item or an article, and its wire members in promotion order.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { COVERED_STATUSES } from '../wire/index.js';

/**
 * Whether the story needs no automatic queue item: it was claimed before (stories.promoted_at), a
 * wire member was promoted (by the job or an editor), or an article member is approved, submitted
 * or scheduled.
 */
export async function storyCovered(trx: Db, storyId: number): Promise<boolean> {
  const { rows } = await sql<{ covered: boolean }>`
    SELECT EXISTS (SELECT 1 FROM stories s WHERE s.id = ${storyId} AND s.promoted_at IS NOT NULL)
        OR EXISTS (SELECT 1 FROM wire_items w WHERE w.story_id = ${storyId} AND w.promoted_at IS NOT NULL)
        OR EXISTS (
          SELECT 1 FROM story_members m JOIN articles a ON a.id = m.item_id
          WHERE m.story_id = ${storyId} AND m.item_kind = 'article' AND a.status = ANY(${sql.val([...COVERED_STATUSES])}::text[])
        ) AS covered`.execute(trx);
  return rows[0]?.covered ?? false;
}

/** The story's wire members, the one to promote first: independent before copies, earliest first. */
export async function wireMembersForPromotion(trx: Db, storyId: number): Promise<number[]> {
  const rows = await trx
    .selectFrom('story_members')
    .select('item_id')
    .where('story_id', '=', storyId)
    .where('item_kind', '=', 'wire')
    .orderBy('copy_of_member')
    .orderBy('seen_at')
    .orderBy('item_id')
    .execute();
  return rows.map((r) => r.item_id);
}
