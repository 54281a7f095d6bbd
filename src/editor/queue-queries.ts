/**
 * The editors' queue: submissions and promoted wire items awaiting review (status
 * submitted), newest first, from articles_status_created_idx. Sponsored posts are reviewed through
 * /api/v1/sponsored/ and are not listed.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';

export interface QueueItem {
  id: number;
  headline: string;
  url: string;
  source: string;
  origin: string;
  status: string;
  created_at: Date;
  published_at: Date | null;
  scheduled_for: Date | null;
  tags: string[];
  token_symbols: string[];
  token_addresses: string[];
  issuer_name: string | null;
  issuer_website: string | null;
  content_type: string | null;
  updated_at: Date;
  decision_reason: string | null;
  decision_note: string | null;
  duplicate_of: number | null;
  submitter_id: number | null;
  submitter_username: string | null;
  submitter_address: string | null;
  submitter_account_type: string | null;
}

interface QueueId {
  id: number;
  updated_at: Date;
  /** The item's story (src/stories/), null until assigned: the queue groups the members of one story. */
  story_id: number | null;
  source: string;
}

function base(db: Db) {
  return db
    .selectFrom('articles as a')
    .leftJoin('users as s', 's.id', 'a.submitted_by')
    .select([
      'a.id',
      'a.headline',
      'a.url',
      'a.source',
      'a.origin',
      'a.status',
      'a.created_at',
      'a.updated_at',
      'a.published_at',
      'a.scheduled_for',
      'a.tags',
      'a.token_symbols',
      'a.token_addresses',
      'a.issuer_name',
      'a.issuer_website',
      'a.content_type',
      'a.decision_reason',
      'a.decision_note',
      'a.duplicate_of',
      's.id as submitter_id',
      's.username as submitter_username',
      's.wallet_address as submitter_address',
      's.account_type as submitter_account_type',
    ]);
}

type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

const dates = (r: Json<QueueItem>): QueueItem => ({
  ...r,
  created_at: new Date(r.created_at),
  updated_at: new Date(r.updated_at),
  published_at: r.published_at === null ? null : new Date(r.published_at),
  scheduled_for: r.scheduled_for === null ? null : new Date(r.scheduled_for),
});

/** How many submissions wait in the queue (paid ads have their own). */
async function waitingCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom('articles')
    .select(sql<number>`count(*)`.as('n'))
    .where('status', '=', 'submitted')
    .where('origin', '<>', 'x402_ad')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The newest `limit` waiting items and how many wait in all. The page is built by Postgres as one
 * JSON array (one value to parse instead of 500 rows of typed columns: the queue page's budget).
 */
export async function queueItems(db: Db, limit: number): Promise<{ items: QueueItem[]; total: number }> {
  const page = base(db).where('a.status', '=', 'submitted').where('a.origin', '<>', 'x402_ad').orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(limit);
  const [rows, total] = await Promise.all([
    db
      .selectFrom(page.as('q'))
      .select(sql<Json<QueueItem>[]>`coalesce(json_agg(q ORDER BY q.created_at DESC, q.id DESC), '[]'::json)`.as('items'))
      .executeTakeFirstOrThrow(),
    waitingCount(db),
  ]);
  return { items: rows.items.map(dates), total };
}

export async function queueItem(db: Db, id: number): Promise<QueueItem | undefined> {
  return (await base(db).where('a.id', '=', id).executeTakeFirst()) as QueueItem | undefined;
}

/** The ids (and last change, story and source) of the newest `limit` waiting items, and how many wait in all. */
export async function queueIds(db: Db, limit: number): Promise<{ ids: QueueId[]; total: number }> {
  const [ids, total] = await Promise.all([
    db
      .selectFrom('articles')
      .select(['id', 'updated_at', 'story_id', 'source'])
      .where('status', '=', 'submitted')
      .where('origin', '<>', 'x402_ad')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute(),
    waitingCount(db),
  ]);
  return { ids, total };
}

/** Full rows of the given articles (any order), as one JSON value. */
export async function queueItemsByIds(db: Db, ids: number[]): Promise<QueueItem[]> {
  if (ids.length === 0) return [];
  const r = await db
    .selectFrom(base(db).where('a.id', 'in', ids).as('q'))
    .select(sql<Json<QueueItem>[]>`coalesce(json_agg(q), '[]'::json)`.as('items'))
    .executeTakeFirstOrThrow();
  return r.items.map(dates);
}
