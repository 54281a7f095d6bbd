/**
 * SQL of the assigner's hot path (Kysely only): few statements per item. The items of a batch and
 * their memberships are read with one statement per kind, a candidate lookup is one statement, and
 * an item's assignment (its member row, lookup keys, `story_id`, and the story's counters, or the
 * new story) is one statement of data-modifying CTEs. The story's counters are updated from the
 * member being added (the statement reads the members as they were before it), so they agree with
 * what refreshStory recomputes from all members.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import type { ItemFeatures } from './rules/features.js';
import type { ItemKind, ItemSource } from './queries.js';

export interface LockedItem extends ItemSource {
  /** The item's story and stored features, when it is assigned already. */
  current: { storyId: number; titleKey: string; locked: boolean } | null;
}

interface ItemRow {
  id: number;
  title: string;
  url: string | null;
  source: string | null;
  text: string | null;
  claimed_at: Date | null;
  observed_at: Date;
  excluded: boolean;
  member_story: number | null;
  member_title_key: string | null;
  member_locked: boolean | null;
}

/** The items of `ids` with their memberships, their rows locked for the transaction (a retried job waits for a running one). */
export async function lockItems(trx: Db, kind: ItemKind, ids: readonly number[]): Promise<LockedItem[]> {
  if (ids.length === 0) return [];
  const member = sql`LEFT JOIN story_members m ON m.item_kind = ${kind} AND m.item_id = x.id LEFT JOIN stories s ON s.id = m.story_id`;
  const memberCols = sql`m.story_id AS member_story, m.features->>'titleKey' AS member_title_key, s.locked AS member_locked`;
  const { rows } =
    kind === 'article'
      ? await sql<ItemRow>`
          SELECT x.id, x.headline AS title, x.url, nullif(x.source, '') AS source, NULL::text AS text, NULL::timestamptz AS claimed_at,
                 coalesce(x.published_at, x.created_at) AS observed_at, x.sponsored IS NOT NULL AS excluded, ${memberCols}
          FROM articles x ${member} WHERE x.id = ANY(${sql.val([...ids])}::int[]) ORDER BY x.id FOR UPDATE OF x`.execute(trx)
      : await sql<ItemRow>`
          SELECT x.id, x.title, x.url, x.source_name AS source, x.summary AS text, x.publisher_claimed_at AS claimed_at,
                 x.ingested_at AS observed_at, false AS excluded, ${memberCols}
          FROM wire_items x ${member} WHERE x.id = ANY(${sql.val([...ids])}::int[]) ORDER BY x.id FOR UPDATE OF x`.execute(trx);
  return rows.map((r) => ({
    kind,
    id: r.id,
    title: r.title,
    url: r.url,
    source: r.source,
    text: r.text,
    claimedAt: r.claimed_at,
    observedAt: r.observed_at,
    excluded: r.excluded,
    current: r.member_story === null ? null : { storyId: r.member_story, titleKey: r.member_title_key ?? '', locked: r.member_locked ?? false },
  }));
}

interface CandidateRow {
  id: number;
  lastSeenAt: Date;
  sourceCount: number;
  members: ItemFeatures[];
}

/**
 * In one statement: the stories sharing lookup keys with the item, seen since `since`, the `limit`
 * sharing most keys (ties: lower id), each with its first member and its `recent` latest ones.
 */
export async function candidates(trx: Db, keys: readonly string[], since: Date, limit: number, recent: number): Promise<CandidateRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql<{ id: number; last_seen_at: Date; source_count: number; features: ItemFeatures }>`
    WITH c AS (
      SELECT story_id, count(*) AS hits FROM story_keys
      WHERE key = ANY(${sql.val([...keys])}::text[]) AND last_seen_at >= ${since}
      GROUP BY story_id ORDER BY hits DESC, story_id LIMIT ${limit}
    ), m AS (
      SELECT story_id, features, seen_at, item_kind, item_id,
             row_number() OVER (PARTITION BY story_id ORDER BY seen_at DESC, item_kind, item_id) AS rn_desc,
             row_number() OVER (PARTITION BY story_id ORDER BY seen_at, item_kind, item_id) AS rn_asc
      FROM story_members WHERE story_id IN (SELECT story_id FROM c)
    )
    SELECT s.id, s.last_seen_at, s.source_count, m.features
    FROM stories s JOIN m ON m.story_id = s.id
    WHERE s.id IN (SELECT story_id FROM c) AND (m.rn_desc <= ${recent} OR m.rn_asc = 1)
    ORDER BY s.id, m.seen_at, m.item_kind, m.item_id`.execute(trx);
  const out: CandidateRow[] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last?.id === r.id) last.members.push(r.features);
    else out.push({ id: r.id, lastSeenAt: r.last_seen_at, sourceCount: r.source_count, members: [r.features] });
  }
  return out;
}

interface NewMember {
  kind: ItemKind;
  id: number;
  headline: string;
  url: string | null;
  source: string;
  seenAt: Date;
  copy: boolean;
  features: ItemFeatures;
  /** Lookup keys to index under the story (copy keys and words). */
  keys: readonly string[];
}

function memberWrites(m: NewMember, storyId: ReturnType<typeof sql>) {
  const items = m.kind === 'article' ? sql.table('articles') : sql.table('wire_items');
  return sql`
    mi AS (
      INSERT INTO story_members (item_kind, item_id, story_id, headline, url, source, seen_at, copy_of_member, features)
      VALUES (${m.kind}, ${m.id}, ${storyId}, ${m.headline}, ${m.url}, ${m.source}, ${m.seenAt}, ${m.copy}, ${JSON.stringify(m.features)}::jsonb)
    ), ki AS (
      INSERT INTO story_keys (key, story_id, last_seen_at)
      SELECT DISTINCT k, ${storyId}, ${m.seenAt}::timestamptz FROM unnest(${sql.val([...m.keys])}::text[]) k
      ON CONFLICT (key, story_id) DO UPDATE SET last_seen_at = greatest(story_keys.last_seen_at, excluded.last_seen_at)
    ), iu AS (
      UPDATE ${items} SET story_id = ${storyId} WHERE id = ${m.id}
    )`;
}

/** Add the item to an existing story in one statement; returns the story's source count after. */
export async function joinStory(trx: Db, storyId: number, m: NewMember): Promise<number> {
  const sourceKey = m.features.sourceKey;
  const { rows } = await sql<{ source_count: number }>`
    WITH ${memberWrites(m, sql`${storyId}::int`)}, su AS (
      UPDATE stories s SET
        member_count = s.member_count + 1,
        source_count = s.source_count + CASE WHEN ${m.copy}::boolean OR EXISTS (
          SELECT 1 FROM story_members o WHERE o.story_id = s.id AND NOT o.copy_of_member AND o.features->>'sourceKey' = ${sourceKey}::text
        ) THEN 0 ELSE 1 END,
        headline = CASE WHEN EXISTS (
          SELECT 1 FROM story_members o WHERE o.story_id = s.id
            AND (o.copy_of_member, o.seen_at, o.item_kind, o.item_id) < (${m.copy}::boolean, ${m.seenAt}::timestamptz, ${m.kind}::text, ${m.id}::int)
        ) THEN s.headline ELSE ${m.headline}::text END,
        first_seen_at = least(s.first_seen_at, ${m.seenAt}::timestamptz),
        last_seen_at = greatest(s.last_seen_at, ${m.seenAt}::timestamptz),
        updated_at = now()
      WHERE s.id = ${storyId}
      RETURNING s.source_count
    )
    SELECT source_count FROM su`.execute(trx);
  return rows[0]?.source_count ?? 0;
}

/** Open a story with the item as its only member, in one statement; returns the new story's id. */
export async function openStory(trx: Db, m: NewMember): Promise<number> {
  const { rows } = await sql<{ id: number }>`
    WITH ns AS (
      INSERT INTO stories (headline, first_seen_at, last_seen_at, member_count, source_count)
      VALUES (${m.headline}, ${m.seenAt}, ${m.seenAt}, 1, ${m.copy ? 0 : 1})
      RETURNING id
    ), ${memberWrites(m, sql`(SELECT id FROM ns)`)}
    SELECT id FROM ns`.execute(trx);
  return rows[0]!.id;
}

/** Count the batch's new items and their words in the document frequencies, in one statement. */
export async function addWordCounts(trx: Db, items: number, words: ReadonlyMap<string, number>): Promise<void> {
  if (items === 0) return;
  const all = [...words].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  await sql`
    INSERT INTO story_word_counts (word, items)
    SELECT * FROM unnest(${sql.val(['', ...all.map(([w]) => w)])}::text[], ${sql.val([items, ...all.map(([, n]) => n)])}::int[])
    ON CONFLICT (word) DO UPDATE SET items = story_word_counts.items + excluded.items`.execute(trx);
}
