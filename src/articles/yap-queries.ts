/**
 * Yaps (comments) and their votes: SQL only. yap_count on the article and vote_score on the yap are
 * kept exact the same way as article votes: the writers run inside the use case's transaction
 * (src/articles/yap-service.ts), which holds the parent row's lock.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { OPEN_STATUSES } from './rules/state.js';
import type { VoteWrite } from './rules/vote.js';

type YapSort = 'top' | 'new' | 'old';

export interface YapRow {
  id: number;
  article_id: number;
  text: string;
  tags: string[];
  base_score: number;
  vote_score: number;
  score: number;
  created_at: Date;
  user_id: number;
  username: string | null;
  wallet_address: string;
  account_type: string;
}

/**
 * Count a new yap on an article that takes yaps (row lock until the transaction ends); undefined when
 * the article does not exist or is closed.
 */
export async function countYapOn(trx: Db, articleId: number) {
  return trx
    .updateTable('articles')
    .set({ yap_count: sql`yap_count + 1` })
    .where('id', '=', articleId)
    .where('status', 'in', [...OPEN_STATUSES])
    .returning('id')
    .executeTakeFirst();
}

/** The fields of a yap's author that its record shows. */
export async function yapAuthor(trx: Db, userId: number) {
  return trx.selectFrom('users').select(['id', 'username', 'wallet_address', 'account_type']).where('id', '=', userId).executeTakeFirstOrThrow();
}

export async function insertYapRow(trx: Db, v: { articleId: number; userId: number; text: string; tags: string[]; baseScore: -1 | 0 | 1 }) {
  return trx
    .insertInto('yaps')
    .values({ article_id: v.articleId, user_id: v.userId, text: v.text, tags: v.tags, base_score: v.baseScore })
    .returning(['id', 'article_id', 'text', 'tags', 'base_score', 'vote_score', 'score', 'created_at', 'user_id'])
    .executeTakeFirstOrThrow();
}

export async function listYaps(db: Db, q: { articleId: number; sort: YapSort; page: number; perPage: number }): Promise<{ rows: YapRow[]; count: number }> {
  let page = db
    .selectFrom('yaps as y')
    .innerJoin('users as u', 'u.id', 'y.user_id')
    .select([
      'y.id',
      'y.article_id',
      'y.text',
      'y.tags',
      'y.base_score',
      'y.vote_score',
      'y.score',
      'y.created_at',
      'y.user_id',
      'u.username',
      'u.wallet_address',
      'u.account_type',
    ])
    .where('y.article_id', '=', q.articleId);
  if (q.sort === 'top') page = page.orderBy('y.score', 'desc').orderBy('y.id', 'asc');
  else if (q.sort === 'new') page = page.orderBy('y.created_at', 'desc').orderBy('y.id', 'desc');
  else page = page.orderBy('y.created_at', 'asc').orderBy('y.id', 'asc');
  const [rows, count] = await Promise.all([
    page
      .limit(q.perPage)
      .offset((q.page - 1) * q.perPage)
      .execute(),
    db
      .selectFrom('yaps')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('article_id', '=', q.articleId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as YapRow[], count: Number(count.n) };
}

/** The caller's votes on the given yaps: yap id -> weight. */
export async function myYapVotes(db: Db, userId: number, yapIds: number[]): Promise<Map<number, number>> {
  if (yapIds.length === 0) return new Map();
  const rows = await db.selectFrom('yap_votes').select(['yap_id', 'weight']).where('user_id', '=', userId).where('yap_id', 'in', yapIds).execute();
  return new Map(rows.map((r) => [r.yap_id, r.weight]));
}

/** A yap of the given article under its row lock (FOR NO KEY UPDATE), with its author and the article's status. */
export async function lockYapForVote(trx: Db, articleId: number, yapId: number) {
  return trx
    .selectFrom('yaps as y')
    .innerJoin('articles as a', 'a.id', 'y.article_id')
    .select(['y.id', 'y.user_id', 'a.status'])
    .where('y.id', '=', yapId)
    .where('y.article_id', '=', articleId)
    .forNoKeyUpdate('y')
    .executeTakeFirst();
}

/** The caller's stored vote row on a yap, undefined when none. */
export async function storedYapVote(trx: Db, yapId: number, userId: number) {
  return trx.selectFrom('yap_votes').select('weight').where('yap_id', '=', yapId).where('user_id', '=', userId).executeTakeFirst();
}

/** Delete, insert or update the caller's yap vote row as `write` says. */
export async function writeYapVote(trx: Db, write: VoteWrite, v: { yapId: number; userId: number }): Promise<void> {
  if (write.kind === 'delete') await trx.deleteFrom('yap_votes').where('yap_id', '=', v.yapId).where('user_id', '=', v.userId).execute();
  else if (write.kind === 'insert') await trx.insertInto('yap_votes').values({ yap_id: v.yapId, user_id: v.userId, weight: write.weight }).execute();
  else if (write.kind === 'update') {
    await trx
      .updateTable('yap_votes')
      .set({ weight: write.weight, updated_at: sql`now()` })
      .where('yap_id', '=', v.yapId)
      .where('user_id', '=', v.userId)
      .execute();
  }
}

/** Move the yap's vote_score; returns it and the yap's score after the move. */
export async function addToYapScore(trx: Db, yapId: number, delta: number) {
  return trx
    .updateTable('yaps')
    .set({ vote_score: sql`vote_score + ${delta}` })
    .where('id', '=', yapId)
    .returning(['vote_score', 'score'])
    .executeTakeFirstOrThrow();
}
