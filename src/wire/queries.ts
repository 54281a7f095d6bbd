/**
 * Wire ("tsunami") sources, items, receipts and promotion into the editors' queue.
 */
import type { FeedFormat } from './rules/feed-parse.js';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import { articleEvent, tsunamiEvent, type ArticleEventSource } from '../articles/index.js';
import { slugify } from '../platform/url/slug.js';
import { newsEvent, recordEvents } from '../platform/events/log.js';

// ---------------------------------------------------------------------------------------------
// Sources

interface NewSource {
  name: string;
  url: string;
  weight?: number;
  pollIntervalS?: number;
}

export async function addSource(db: Db, s: NewSource) {
  return db
    .insertInto('wire_sources')
    .values({ name: s.name, url: s.url, weight: s.weight ?? 1, poll_interval_s: s.pollIntervalS ?? 300 })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listSources(db: Db) {
  return db.selectFrom('wire_sources').selectAll().orderBy('id').execute();
}

/** A source by numeric id or by name (case-insensitive). */
export async function findSource(db: Db, idOrName: string | number) {
  const q = db.selectFrom('wire_sources').selectAll();
  if (typeof idOrName === 'number' || /^\d+$/.test(idOrName)) return q.where('id', '=', Number(idOrName)).executeTakeFirst();
  return q.where(sql<boolean>`lower(name) = lower(${idOrName})`).executeTakeFirst();
}

/** Removes the source; its items and receipts stay (they are provenance records) with source_id null. */
export async function removeSource(db: Db, id: number): Promise<boolean> {
  const r = await db.deleteFrom('wire_sources').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function setSourceEnabled(db: Db, id: number, enabled: boolean) {
  await db.updateTable('wire_sources').set({ enabled, updated_at: new Date() }).where('id', '=', id).execute();
}

/** Fetch the source at the next round, its failure count cleared (the CLI's `wire enable`). */
export async function fetchSourceSoon(db: Db, id: number) {
  await db.updateTable('wire_sources').set({ next_fetch_at: new Date(), consecutive_failures: 0 }).where('id', '=', id).execute();
}

export async function dueSources(db: Db, now: Date, limit = 500) {
  return db
    .selectFrom('wire_sources')
    .select(['id', 'next_fetch_at'])
    .where('enabled', '=', true)
    .where('next_fetch_at', '<=', now)
    .orderBy('next_fetch_at')
    .limit(limit)
    .execute();
}

export async function recordFetchSuccess(
  db: Db,
  id: number,
  r: { now: Date; status: number; etag: string | null; lastModified: string | null; format: FeedFormat | null; created: number; nextFetchAt: Date },
) {
  await db
    .updateTable('wire_sources')
    .set((eb) => ({
      etag: r.etag,
      last_modified: r.lastModified,
      format: r.format ?? eb.ref('format'),
      last_fetched_at: r.now,
      last_success_at: r.now,
      last_status: r.status,
      last_error: null,
      consecutive_failures: 0,
      items_ingested: eb('items_ingested', '+', r.created),
      next_fetch_at: r.nextFetchAt,
      updated_at: r.now,
    }))
    .where('id', '=', id)
    .execute();
}

export async function recordFetchNotModified(db: Db, id: number, now: Date, nextFetchAt: Date) {
  await db
    .updateTable('wire_sources')
    .set({ last_fetched_at: now, last_success_at: now, last_status: 304, last_error: null, consecutive_failures: 0, next_fetch_at: nextFetchAt, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Returns the new failure count. */
export async function recordFetchFailure(db: Db, id: number, r: { now: Date; status: number | null; error: string; backoffS: (failures: number) => number }): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('wire_sources')
      .set((eb) => ({
        consecutive_failures: eb('consecutive_failures', '+', 1),
        last_fetched_at: r.now,
        last_status: r.status,
        last_error: r.error.slice(0, 500),
        updated_at: r.now,
      }))
      .where('id', '=', id)
      .returning('consecutive_failures')
      .executeTakeFirst();
    if (!row) return 0;
    await trx
      .updateTable('wire_sources')
      .set({ next_fetch_at: new Date(r.now.getTime() + r.backoffS(row.consecutive_failures) * 1000) })
      .where('id', '=', id)
      .execute();
    return row.consecutive_failures;
  });
}

// ---------------------------------------------------------------------------------------------
// Items

export interface IncomingItem {
  normalizedUrl: string;
  url: string;
  title: string;
  summary: string | null;
  guid: string | null;
  publishedAt: Date | null;
}

interface CreatedItem {
  id: number;
  title: string;
  ingested_at: Date;
}

const CHUNK = 1000;

/**
 * Store a feed's items: a wire item per normalised URL not seen before (ON CONFLICT DO NOTHING,
 * so concurrent and repeated runs create each item once) and a receipt per (item, source).
 * Returns the items this call created: exactly those get a news.tsunami event.
 */
export async function ingestItems(
  db: Db,
  source: { id: number; name: string; url: string },
  items: IncomingItem[],
  now: Date,
): Promise<{ created: CreatedItem[]; receipts: number }> {
  const created: CreatedItem[] = [];
  let receipts = 0;
  for (let i = 0; i < items.length; i += CHUNK) {
    const chunk = items.slice(i, i + CHUNK);
    const cols = {
      nurl: chunk.map((x) => x.normalizedUrl),
      url: chunk.map((x) => x.url),
      title: chunk.map((x) => x.title),
      summary: chunk.map((x) => x.summary),
      guid: chunk.map((x) => x.guid),
      claimed: chunk.map((x) => (x.publishedAt ? x.publishedAt.toISOString() : null)),
    };
    await db.transaction().execute(async (trx) => {
      const ins = await sql<CreatedItem>`
        INSERT INTO wire_items (normalized_url, url, title, summary, guid, source_id, source_name, source_url, publisher_claimed_at, ingested_at)
        SELECT x.nurl, x.url, x.title, x.summary, x.guid, ${source.id}, ${source.name}, ${source.url}, x.claimed, ${now}
        FROM unnest(${cols.nurl}::text[], ${cols.url}::text[], ${cols.title}::text[], ${cols.summary}::text[], ${cols.guid}::text[], ${cols.claimed}::timestamptz[])
             WITH ORDINALITY AS x(nurl, url, title, summary, guid, claimed, ord)
        -- An item deleted by retention (wire-prune) left a tombstone: never ingested or announced again.
        WHERE NOT EXISTS (SELECT 1 FROM wire_item_tombstones t WHERE t.url_sha256 = sha256(convert_to(x.nurl, 'UTF8')))
        ORDER BY x.ord
        ON CONFLICT (normalized_url) DO NOTHING
        RETURNING id, title, ingested_at`.execute(trx);
      created.push(...ins.rows);
      const rec = await sql`
        INSERT INTO wire_receipts (wire_item_id, source_id, source_name, source_url, item_url, publisher_claimed_at, ingested_at)
        SELECT w.id, ${source.id}, ${source.name}, ${source.url}, x.url, x.claimed, ${now}
        FROM unnest(${cols.nurl}::text[], ${cols.url}::text[], ${cols.claimed}::timestamptz[]) AS x(nurl, url, claimed)
        JOIN wire_items w ON w.normalized_url = x.nurl
        ON CONFLICT (wire_item_id, source_url) DO NOTHING`.execute(trx);
      receipts += Number(rec.numAffectedRows ?? 0);
      // Exactly the items this call created get a news.tsunami event, committed with them (last:
      // an event written early would hold back the event horizon, and so every later event, until this commit).
      await recordEvents(
        trx,
        ins.rows.map((w) => newsEvent(tsunamiEvent(w))),
      );
    });
  }
  return { created, receipts };
}

type WireItemState = 'new' | 'scored' | 'promoted' | 'all';

export async function listItems(db: Db, opts: { state: WireItemState; sourceId?: number; limit: number; beforeId?: number }) {
  let q = db
    .selectFrom('wire_items')
    .select([
      'id',
      'title',
      'url',
      'normalized_url',
      'summary',
      'source_id',
      'source_name',
      'source_url',
      'ingested_at',
      'publisher_claimed_at',
      'novelty',
      'score',
      'scored_at',
      'promoted_article_id',
      'promoted_at',
      'promoted_by',
      sql<number>`(SELECT count(*) FROM wire_receipts r WHERE r.wire_item_id = wire_items.id)`.as('receipt_count'),
    ])
    .orderBy('id', 'desc')
    .limit(opts.limit);
  if (opts.state === 'new') q = q.where('scored_at', 'is', null).where('promoted_article_id', 'is', null);
  if (opts.state === 'scored') q = q.where('scored_at', 'is not', null).where('promoted_article_id', 'is', null);
  if (opts.state === 'promoted') q = q.where('promoted_article_id', 'is not', null);
  if (opts.sourceId !== undefined) q = q.where('source_id', '=', opts.sourceId);
  if (opts.beforeId !== undefined) q = q.where('id', '<', opts.beforeId);
  return q.execute();
}

// ---------------------------------------------------------------------------------------------
// Scoring and promotion

/**
 * Claim up to `limit` items for scoring (scored_at set now). Items claimed by a run that died
 * without writing a score are claimed again after 10 minutes. SKIP LOCKED keeps concurrent runs apart.
 */
export async function claimUnscored(db: Db, now: Date, limit: number) {
  const { rows } = await sql<{ id: number; title: string; normalized_url: string; source_id: number | null; weight: number }>`
    WITH picked AS (
      SELECT id FROM wire_items
      WHERE promoted_article_id IS NULL
        AND (scored_at IS NULL OR (score IS NULL AND scored_at < ${new Date(now.getTime() - 600_000)}))
      ORDER BY ingested_at, id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE wire_items w SET scored_at = ${now}
    FROM picked
    WHERE w.id = picked.id
    RETURNING w.id, w.title, w.normalized_url, w.source_id,
      COALESCE((SELECT s.weight FROM wire_sources s WHERE s.id = w.source_id), 1) AS weight`.execute(db);
  return rows;
}

export async function setScore(db: Db, id: number, novelty: number, score: number) {
  await db.updateTable('wire_items').set({ novelty, score }).where('id', '=', id).execute();
}

/** Scored, unpromoted items of the last `hours` at or above `minScore`, best first. */
export async function promotionCandidates(db: Db, now: Date, minScore: number, hours: number, limit: number) {
  return db
    .selectFrom('wire_items as w')
    .leftJoin('wire_sources as s', 's.id', 'w.source_id')
    .select(['w.id', 'w.title', 'w.normalized_url', 'w.score', 'w.novelty', sql<number>`COALESCE(s.weight, 1)`.as('weight')])
    .where('w.promoted_article_id', 'is', null)
    .where('w.promoted_at', 'is', null)
    .where('w.score', '>=', minScore)
    .where('w.ingested_at', '>=', new Date(now.getTime() - hours * 3600_000))
    .orderBy('w.score', 'desc')
    .orderBy('w.ingested_at', 'desc')
    .limit(limit)
    .execute();
}

/** The promoted article: the columns its events are built from. */
type PromotedArticle = ArticleEventSource;

type PromoteOutcome =
  | { outcome: 'promoted'; article: PromotedArticle; wireItemId: number }
  | { outcome: 'already_promoted'; articleId: number | null; wireItemId: number }
  | { outcome: 'duplicate_url'; articleId: number; wireItemId: number }
  | { outcome: 'story_promoted'; storyId: number; wireItemId: number }
  | { outcome: 'locked' }
  | { outcome: 'not_found' };

/** The outcomes of a promotion that neither claims the story nor skips a locked item. */
type PlainPromoteOutcome = Exclude<PromoteOutcome, { outcome: 'story_promoted' | 'locked' }>;

interface PromoteOptions {
  promotedBy: number | null;
  headline?: string;
  now: Date;
  /**
   * Automatic promotion: claim the item's story (stories.promoted_at, a conditional UPDATE in this
   * transaction) and refuse with `story_promoted` when the story already had its automatic queue
   * item. Editors' promotions do not claim.
   */
  claimStory?: boolean;
  /**
   * Skip an item whose row another transaction holds (`locked`) instead of waiting: the story
   * assigner, which holds its advisory lock, must not wait for an item whose own assignment waits
   * for that lock.
   */
  skipLocked?: boolean;
}

/**
 * Turn a wire item into a submitted article with origin `tsunami` (the editors' queue), once:
 * the item row is locked, and an item already promoted reports its article instead. An item whose
 * URL is already an article of the last 30 days (any status but killed) is not promoted.
 * `promotedBy` is the editor's user id, or null for the automatic promotion job.
 */
export async function promoteWireItem(db: Db, itemId: number, opts: Omit<PromoteOptions, 'claimStory' | 'skipLocked'>): Promise<PlainPromoteOutcome> {
  // Without claimStory and skipLocked the story_promoted and locked outcomes cannot occur.
  return db.transaction().execute((trx) => promoteWireItemIn(trx, itemId, opts) as Promise<PlainPromoteOutcome>);
}

/**
 * promoteWireItem inside the caller's transaction: the promotion job's (which claims the story) and
 * the story assigner's corroboration rule (src/stories/corroboration.ts).
 */
export async function promoteWireItemIn(trx: Transaction<Database>, itemId: number, opts: PromoteOptions): Promise<PromoteOutcome> {
  const q = trx
    .selectFrom('wire_items')
    .select(['id', 'title', 'url', 'normalized_url', 'source_name', 'promoted_article_id', 'promoted_at', 'story_id'])
    .where('id', '=', itemId)
    .forUpdate();
  const item = await (opts.skipLocked ? q.skipLocked() : q).executeTakeFirst();
  if (!item) return opts.skipLocked && (await wireItemExists(trx, itemId)) ? { outcome: 'locked' as const } : { outcome: 'not_found' as const };
  if (item.promoted_at) return { outcome: 'already_promoted' as const, articleId: item.promoted_article_id, wireItemId: item.id };
  // The same URL already in the queue or on the site (last 30 days, not killed): no second copy.
  const existing = await trx
    .selectFrom('articles')
    .select('id')
    .where('normalized_url', '=', item.normalized_url)
    .where('status', '!=', 'killed')
    .where('created_at', '>=', new Date(opts.now.getTime() - 30 * 86_400_000))
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  if (existing) return { outcome: 'duplicate_url' as const, articleId: existing.id, wireItemId: item.id };
  if (opts.claimStory && item.story_id !== null && !(await claimStory(trx, item.story_id, opts.now))) {
    return { outcome: 'story_promoted' as const, storyId: item.story_id, wireItemId: item.id };
  }
  const headline = opts.headline ?? item.title;
  const article = await trx
    .insertInto('articles')
    .values({
      slug: slugify(headline),
      headline,
      headline_source: opts.headline ? 'editor' : 'wire',
      url: item.url,
      normalized_url: item.normalized_url,
      source: item.source_name,
      status: 'submitted',
      origin: 'tsunami',
      submitted_by: null,
      created_at: opts.now,
      updated_at: opts.now,
    })
    .returning(['id', 'slug', 'status', 'headline', 'origin', 'created_at', 'published_at', 'sponsored'])
    .executeTakeFirstOrThrow();
  await trx.updateTable('wire_items').set({ promoted_article_id: article.id, promoted_at: opts.now, promoted_by: opts.promotedBy }).where('id', '=', item.id).execute();
  if (opts.claimStory && item.story_id !== null) await trx.updateTable('stories').set({ promoted_article_id: article.id }).where('id', '=', item.story_id).execute();
  await recordEvents(trx, [newsEvent(articleEvent('news.tsunami_promoted', article)), newsEvent(articleEvent('news.submitted', article))]);
  return { outcome: 'promoted' as const, article, wireItemId: item.id };
}

async function wireItemExists(trx: Db, id: number): Promise<boolean> {
  return (await trx.selectFrom('wire_items').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/**
 * The story's claim on its one automatic queue item: true when this transaction set
 * stories.promoted_at (a concurrent claim waits for the row lock, then finds it set).
 */
async function claimStory(trx: Db, storyId: number, now: Date): Promise<boolean> {
  const r = await trx.updateTable('stories').set({ promoted_at: now }).where('id', '=', storyId).where('promoted_at', 'is', null).returning('id').executeTakeFirst();
  return r !== undefined;
}
