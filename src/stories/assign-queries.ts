/**
 * SQL of the assigner's batches (Kysely only), set-based: the batch's items and their memberships
 * (one statement per kind), the postings of all its lookup keys, the compared members of the
 * stories they name, and the batch's writes (new stories, members, keys, items' story_id) in one
 * statement of data-modifying CTEs, the touched stories' counters recomputed from their members in
 * another (as refreshStory does).
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import type { StoredStory } from './rules/batch-state.js';
import type { ItemFeatures } from './rules/features.js';
import { refreshStories, type ItemKind, type ItemSource } from './queries.js';

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
          SELECT x.id, x.headline AS title, x.url, nullif(x.source, '') AS source, x.page_description AS text, x.page_published_at AS claimed_at,
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

/** One key's stored postings: parallel arrays of stories and the latest member time (ms) with that key. */
interface KeyPostings {
  key: string;
  stories: number[];
  seen: number[];
}

/**
 * The stored postings of `keys` seen at or after `since`, one row per key. A common word has
 * thousands of postings: aggregated as JSON, each key's arrays are parsed natively as numbers
 * instead of one row object and one Date per posting. The two arrays are aggregated in the same
 * pass over a key's rows, so they pair up by position; their order is not needed (the view keeps
 * postings in maps), so no sort runs per key.
 */
export async function postingsOf(trx: Db, keys: readonly string[], since: Date): Promise<KeyPostings[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql<KeyPostings>`
    SELECT key, json_agg(story_id) AS stories, json_agg(floor(extract(epoch FROM last_seen_at) * 1000)) AS seen
    FROM story_keys
    WHERE key = ANY(${sql.val([...keys])}::text[]) AND last_seen_at >= ${since}
    GROUP BY key`.execute(trx);
  return rows;
}

/**
 * The stories of `ids` with their compared members: the first one and the `recent` latest ones
 * (story_members_story_idx, a bounded scan per story), in one statement. The distinct sources of a
 * story's independent members come along when it has fewer than `sourcesBelow` of them (the
 * corroboration rule needs them only then).
 */
export async function storiesOf(trx: Db, ids: readonly number[], recent: number, sourcesBelow: number): Promise<StoredStory[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{
    id: number;
    last_seen_at: Date;
    source_count: number;
    source_keys: string[] | null;
    item_kind: string;
    item_id: number;
    seen_at: Date;
    features: ItemFeatures;
  }>`
    SELECT s.id, s.last_seen_at, s.source_count,
           CASE WHEN s.source_count < ${sourcesBelow}::int THEN array(
             SELECT DISTINCT o.features->>'sourceKey' FROM story_members o WHERE o.story_id = s.id AND NOT o.copy_of_member
           ) END AS source_keys,
           m.item_kind, m.item_id, m.seen_at, m.features
    FROM stories s CROSS JOIN LATERAL (
      (SELECT item_kind, item_id, seen_at, features FROM story_members WHERE story_id = s.id ORDER BY seen_at DESC, item_kind, item_id LIMIT ${recent})
      UNION
      (SELECT item_kind, item_id, seen_at, features FROM story_members WHERE story_id = s.id ORDER BY seen_at, item_kind, item_id LIMIT 1)
    ) m
    WHERE s.id = ANY(${sql.val([...ids])}::int[])`.execute(trx);
  const out = new Map<number, StoredStory>();
  for (const r of rows) {
    let st = out.get(r.id);
    if (!st) {
      st = { id: r.id, lastSeenAt: r.last_seen_at.getTime(), sourceCount: r.source_count, sourceKeys: r.source_keys, members: [] };
      out.set(r.id, st);
    }
    st.members.push({ kind: r.item_kind, id: r.item_id, seenAt: r.seen_at.getTime(), features: r.features });
  }
  return [...out.values()];
}

/** An assignment to write: the member row, its lookup keys and the item's story_id. */
export interface NewMember {
  kind: ItemKind;
  id: number;
  storyId: number;
  headline: string;
  url: string | null;
  source: string;
  seenAt: Date;
  copy: boolean;
  features: ItemFeatures;
  /** Lookup keys to index under the story (copy keys and words). */
  keys: readonly string[];
}

/** `n` new story ids from the stories' sequence, ascending. */
export async function newStoryIds(trx: Db, n: number): Promise<number[]> {
  if (n === 0) return [];
  const { rows } = await sql<{ id: number }>`
    SELECT nextval(pg_get_serial_sequence('stories', 'id'))::int AS id FROM generate_series(1, ${n}::int) ORDER BY 1`.execute(trx);
  return rows.map((r) => r.id);
}

/**
 * Write assignments set-based: the new stories (`opened`, ids from newStoryIds), the members, their
 * lookup keys and the items' story_id in one statement of data-modifying CTEs, then the counters
 * of every touched story recomputed from its members (as refreshStory does) in a second one.
 */
export async function writeAssignments(trx: Db, opened: readonly { id: number; headline: string; seenAt: Date }[], members: readonly NewMember[]): Promise<void> {
  if (members.length === 0) return;
  const col = <T>(f: (m: NewMember) => T) => sql.val(members.map(f));
  const keys = new Map<string, { key: string; storyId: number; at: Date }>();
  for (const m of members) {
    for (const key of m.keys) {
      const id = `${m.storyId} ${key}`;
      const k = keys.get(id);
      if (!k || k.at < m.seenAt) keys.set(id, { key, storyId: m.storyId, at: m.seenAt });
    }
  }
  // Sorted, so that concurrent writers (an editor's merge) take the rows' locks in one order.
  const rows = [...keys.values()].sort((a, b) => a.storyId - b.storyId || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const ofKind = (kind: ItemKind) => members.filter((m) => m.kind === kind);
  const itemUpdate = (kind: ItemKind) => {
    const of = ofKind(kind);
    return sql`
      UPDATE ${kind === 'article' ? sql.table('articles') : sql.table('wire_items')} x SET story_id = v.s
      FROM unnest(${sql.val(of.map((m) => m.id))}::int[], ${sql.val(of.map((m) => m.storyId))}::int[]) AS v(i, s)
      WHERE x.id = v.i`;
  };
  await sql`
    WITH ns AS (
      INSERT INTO stories (id, headline, first_seen_at, last_seen_at)
      SELECT * FROM unnest(${sql.val(opened.map((o) => o.id))}::int[], ${sql.val(opened.map((o) => o.headline))}::text[],
                           ${sql.val(opened.map((o) => o.seenAt))}::timestamptz[], ${sql.val(opened.map((o) => o.seenAt))}::timestamptz[])
    ), mi AS (
      INSERT INTO story_members (item_kind, item_id, story_id, headline, url, source, seen_at, copy_of_member, features)
      SELECT k, i, s, h, u, src, t, c, f::jsonb
      FROM unnest(${col((m) => m.kind)}::text[], ${col((m) => m.id)}::int[], ${col((m) => m.storyId)}::int[], ${col((m) => m.headline)}::text[],
                  ${col((m) => m.url)}::text[], ${col((m) => m.source)}::text[], ${col((m) => m.seenAt)}::timestamptz[], ${col((m) => m.copy)}::boolean[],
                  ${col((m) => JSON.stringify(m.features))}::text[]) AS v(k, i, s, h, u, src, t, c, f)
    ), ki AS (
      INSERT INTO story_keys (key, story_id, last_seen_at)
      SELECT * FROM unnest(${sql.val(rows.map((r) => r.key))}::text[], ${sql.val(rows.map((r) => r.storyId))}::int[], ${sql.val(rows.map((r) => r.at))}::timestamptz[])
      ON CONFLICT (key, story_id) DO UPDATE SET last_seen_at = greatest(story_keys.last_seen_at, excluded.last_seen_at)
    ), ua AS (${itemUpdate('article')}), uw AS (${itemUpdate('wire')})
    SELECT 1`.execute(trx);
  await refreshStories(trx, [...new Set(members.map((m) => m.storyId))]);
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
