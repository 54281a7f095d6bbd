/**
 * SQL of the stories feature (Kysely only). The assigner's state lives here: stories, their
 * members with features, the inverted index of candidate lookup (story_keys) and the word counts.
 */
import { sql } from 'kysely';
import { tokenSymbolsMatch } from '../articles/index.js';
import type { Db } from '../platform/db.js';

export type ItemKind = 'article' | 'wire';

export interface ItemSource {
  kind: ItemKind;
  id: number;
  title: string;
  url: string | null;
  source: string | null;
  text: string | null;
  claimedAt: Date | null;
  observedAt: Date;
  /** Sponsored articles are not assigned. */
  excluded: boolean;
}

/** One assigner at a time: assignment reads and writes shared state (candidates, counts). */
export async function lockAssigner(trx: Db): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('stories.assign'))`.execute(trx);
}

/** Document frequencies of `words` and the number of items assigned so far. */
export async function wordCounts(trx: Db, words: readonly string[]): Promise<{ counts: Map<string, number>; items: number }> {
  const { rows } = await sql<{ word: string; items: number }>`
    SELECT word, items FROM story_word_counts WHERE word = ANY(${sql.val(['', ...words])}::text[])`.execute(trx);
  const counts = new Map(rows.map((r) => [r.word, r.items]));
  return { counts, items: counts.get('') ?? 0 };
}

export async function insertStory(trx: Db, headline: string, at: Date): Promise<number> {
  const r = await trx.insertInto('stories').values({ headline, first_seen_at: at, last_seen_at: at }).returning('id').executeTakeFirstOrThrow();
  return r.id;
}

export async function deleteMember(trx: Db, kind: ItemKind, id: number): Promise<void> {
  await trx.deleteFrom('story_members').where('item_kind', '=', kind).where('item_id', '=', id).execute();
}

/** Recompute a story's headline, times and counts from its members; delete it when it has none. */
export async function refreshStory(trx: Db, storyId: number): Promise<void> {
  await refreshStories(trx, [storyId]);
  await sql`DELETE FROM stories s WHERE s.id = ${storyId} AND NOT EXISTS (SELECT 1 FROM story_members m WHERE m.story_id = s.id)`.execute(trx);
}

/** Recompute the headline, times and counts of the stories of `ids` that have members, in one statement. */
export async function refreshStories(trx: Db, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    UPDATE stories s SET
      headline = f.headline, first_seen_at = f.first_seen, last_seen_at = f.last_seen,
      member_count = f.members, source_count = f.sources, updated_at = now()
    FROM (
      SELECT story_id, (array_agg(headline ORDER BY copy_of_member, seen_at, item_kind, item_id))[1] AS headline,
             min(seen_at) AS first_seen, max(seen_at) AS last_seen, count(*)::int AS members,
             count(DISTINCT features->>'sourceKey') FILTER (WHERE NOT copy_of_member)::int AS sources
      FROM story_members WHERE story_id = ANY(${sql.val([...ids].sort((x, y) => x - y))}::int[])
      GROUP BY story_id
    ) f
    WHERE s.id = f.story_id`.execute(trx);
}

/** Replace the lookup keys of `storyIds` with `keys` (two statements). */
export async function replaceKeys(db: Db, storyIds: readonly number[], keys: readonly { key: string; storyId: number; lastSeenAt: Date }[]): Promise<void> {
  await db
    .deleteFrom('story_keys')
    .where('story_id', 'in', [...storyIds])
    .execute();
  if (keys.length === 0) return;
  await sql`
    INSERT INTO story_keys (key, story_id, last_seen_at)
    SELECT * FROM unnest(${sql.val(keys.map((k) => k.key))}::text[], ${sql.val(keys.map((k) => k.storyId))}::int[], ${sql.val(keys.map((k) => k.lastSeenAt.toISOString()))}::timestamptz[])`.execute(
    db,
  );
}

export interface StoryListFilter {
  since?: Date;
  until?: Date;
  tags?: string[];
  tokenSymbols?: string[];
  minSources?: number;
  page: number;
  perPage: number;
}

const storyColumns = ['s.id', 's.headline', 's.first_seen_at', 's.last_seen_at', 's.member_count', 's.source_count', 's.locked'] as const;

/** Stories most recently active first (ties: higher id first), with the total count. */
export async function storyPage(db: Db, f: StoryListFilter) {
  let q = db.selectFrom('stories as s').select([...storyColumns, sql<number>`count(*) OVER ()`.as('total')]);
  if (f.since) q = q.where('s.last_seen_at', '>=', f.since);
  if (f.until) q = q.where('s.first_seen_at', '<', f.until);
  if (f.minSources !== undefined) q = q.where('s.source_count', '>=', f.minSources);
  if (f.tags?.length) q = q.where(sql<boolean>`EXISTS (SELECT 1 FROM articles a WHERE a.story_id = s.id AND a.tags && ${sql.val(f.tags)}::text[])`);
  if (f.tokenSymbols?.length) {
    q = q.where(sql<boolean>`EXISTS (SELECT 1 FROM articles a WHERE a.story_id = s.id AND ${tokenSymbolsMatch(f.tokenSymbols)})`);
  }
  const rows = await q
    .orderBy('s.last_seen_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(f.perPage)
    .offset((f.page - 1) * f.perPage)
    .execute();
  return { rows, count: rows[0]?.total ?? (f.page > 1 ? await storyCount(db, f) : 0) };
}

async function storyCount(db: Db, f: StoryListFilter): Promise<number> {
  const r = await storyPage(db, { ...f, page: 1, perPage: 1 });
  return r.count;
}

export async function storyById(db: Db, id: number) {
  return db
    .selectFrom('stories as s')
    .select([...storyColumns])
    .where('s.id', '=', id)
    .executeTakeFirst();
}

/**
 * A story's members in time order: wire items, and articles that are published (approved); the
 * queue's submitted and killed articles are not public.
 */
export async function storyMembers(db: Db, storyId: number) {
  return db
    .selectFrom('story_members as m')
    .leftJoin('articles as a', (j) => j.onRef('a.id', '=', 'm.item_id').on('m.item_kind', '=', 'article'))
    .select(['m.item_kind', 'm.item_id', 'm.headline', 'm.url', 'm.source', 'm.seen_at', 'm.copy_of_member', 'a.headline as article_headline', 'a.url as article_url'])
    .where('m.story_id', '=', storyId)
    .where((eb) => eb.or([eb('m.item_kind', '=', 'wire'), eb('a.status', '=', 'approved')]))
    .orderBy('m.seen_at')
    .orderBy('m.item_kind')
    .orderBy('m.item_id')
    .execute();
}

/**
 * Items of the window not yet assigned, oldest first (articles by publication or submission time,
 * wire items by ingestion), at most `limit`; sponsored articles are never assigned.
 */
export async function unassignedItems(db: Db, since: Date, limit: number): Promise<{ kind: ItemKind; id: number }[]> {
  const rows = await sql<{ kind: ItemKind; id: number }>`
    SELECT kind, id FROM (
      SELECT 'article' AS kind, a.id, coalesce(a.published_at, a.created_at) AS t FROM articles a
      WHERE a.story_id IS NULL AND a.sponsored IS NULL AND coalesce(a.published_at, a.created_at) >= ${since}
      UNION ALL
      SELECT 'wire' AS kind, w.id, w.ingested_at AS t FROM wire_items w
      WHERE w.story_id IS NULL AND w.ingested_at >= ${since}
    ) x ORDER BY t, kind, id LIMIT ${limit}`.execute(db);
  return rows.rows;
}
