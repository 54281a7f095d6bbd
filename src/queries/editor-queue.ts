/**
 * The editors' queue (issue 18): submissions and promoted wire items awaiting review (status
 * submitted), newest first, from articles_status_created_idx. Sponsored posts are reviewed through
 * /api/v1/sponsored/ and are not listed.
 */
import { sql } from 'kysely';
import type { Db } from '../db.js';

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
  decision_reason: string | null;
  decision_note: string | null;
  duplicate_of: number | null;
  submitter_id: number | null;
  submitter_username: string | null;
  submitter_address: string | null;
  submitter_account_type: string | null;
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

export async function queueItems(db: Db, limit: number): Promise<{ items: QueueItem[]; total: number }> {
  const [items, total] = await Promise.all([
    base(db).where('a.status', '=', 'submitted').where('a.origin', '<>', 'x402_ad').orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(limit).execute(),
    db.selectFrom('articles').select(sql<number>`count(*)`.as('n')).where('status', '=', 'submitted').where('origin', '<>', 'x402_ad').executeTakeFirstOrThrow(),
  ]);
  return { items: items as QueueItem[], total: Number(total.n) };
}

export async function queueItem(db: Db, id: number): Promise<QueueItem | undefined> {
  return (await base(db).where('a.id', '=', id).executeTakeFirst()) as QueueItem | undefined;
}
