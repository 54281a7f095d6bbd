/**
 * SQL of the stories reindex (Kysely only): the stored members of a window's stories with what
 * their features are computed from, and the writes that replace features, lookup keys and word
 * counts.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import type { NewMember } from './assign-queries.js';
import type { ItemKind } from './queries.js';

/** A stored member with what its features are computed from. */
type StoredMember = Pick<NewMember, 'kind' | 'id' | 'storyId' | 'headline' | 'url' | 'source' | 'seenAt'> & {
  /** The text the assigner read, when the item still exists: a wire item's feed summary, an article's page description. */
  text: string | null;
};

/** Up to `limit` stories seen since `since` with an id above `after`, ascending. */
export async function storiesAfter(db: Db, since: Date, after: number, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('stories').select('id').where('last_seen_at', '>=', since).where('id', '>', after).orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

export async function membersOf(db: Db, storyIds: readonly number[]): Promise<StoredMember[]> {
  if (storyIds.length === 0) return [];
  const { rows } = await sql<{ item_kind: ItemKind; item_id: number; story_id: number; headline: string; url: string | null; source: string; seen_at: Date; text: string | null }>`
    SELECT m.item_kind, m.item_id, m.story_id, m.headline, m.url, m.source, m.seen_at, coalesce(w.summary, a.page_description) AS text
    FROM story_members m
    LEFT JOIN wire_items w ON m.item_kind = 'wire' AND w.id = m.item_id
    LEFT JOIN articles a ON m.item_kind = 'article' AND a.id = m.item_id
    WHERE m.story_id = ANY(${sql.val([...storyIds])}::int[])`.execute(db);
  return rows.map((r) => ({ kind: r.item_kind, id: r.item_id, storyId: r.story_id, headline: r.headline, url: r.url, source: r.source, seenAt: r.seen_at, text: r.text }));
}

/** Replace the members' stored features (one statement). */
export async function writeFeatures(db: Db, rows: readonly { kind: ItemKind; id: number; features: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    UPDATE story_members m SET features = x.features::jsonb
    FROM unnest(${sql.val(rows.map((r) => r.kind))}::text[], ${sql.val(rows.map((r) => r.id))}::int[], ${sql.val(rows.map((r) => r.features))}::text[]) AS x(kind, id, features)
    WHERE m.item_kind = x.kind AND m.item_id = x.id`.execute(db);
}

/**
 * Recount the word counts from the stored words of the members seen since `since` (the '' row is
 * the number of members); counts of older items are dropped.
 */
export async function recountWords(db: Db, since: Date): Promise<void> {
  await sql`DELETE FROM story_word_counts`.execute(db);
  await sql`
    INSERT INTO story_word_counts (word, items)
    SELECT w, count(*)::int FROM story_members m, LATERAL (SELECT DISTINCT jsonb_array_elements_text(m.features->'words') AS w) x
    WHERE m.seen_at >= ${since} GROUP BY w
    UNION ALL
    SELECT '', count(*)::int FROM story_members WHERE seen_at >= ${since}`.execute(db);
}
