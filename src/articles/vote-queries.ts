/**
 * Article votes: SQL only. One vote per user per article (primary key). The writers run inside the
 * vote's transaction (src/articles/vote-service.ts), which first takes the article's row lock
 * (FOR NO KEY UPDATE, which still lets yaps and votes reference the row), so the read of the
 * previous vote and the counter update see every earlier vote on it.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import type { VoteWrite } from './rules/vote.js';

/** The article's id and status under its row lock (FOR NO KEY UPDATE), undefined when it does not exist. */
export async function lockArticleForVote(trx: Db, articleId: number) {
  return trx.selectFrom('articles').select(['id', 'status']).where('id', '=', articleId).forNoKeyUpdate().executeTakeFirst();
}

/** The caller's stored vote row on an article, undefined when none. */
export async function storedArticleVote(trx: Db, articleId: number, userId: number) {
  return trx.selectFrom('votes').select('weight').where('article_id', '=', articleId).where('user_id', '=', userId).executeTakeFirst();
}

/** Delete, insert or update the caller's vote row as `write` says. */
export async function writeArticleVote(trx: Db, write: VoteWrite, v: { articleId: number; userId: number }): Promise<void> {
  if (write.kind === 'delete') await trx.deleteFrom('votes').where('article_id', '=', v.articleId).where('user_id', '=', v.userId).execute();
  else if (write.kind === 'insert') await trx.insertInto('votes').values({ article_id: v.articleId, user_id: v.userId, weight: write.weight }).execute();
  else if (write.kind === 'update') {
    await trx
      .updateTable('votes')
      .set({ weight: write.weight, updated_at: sql`now()` })
      .where('article_id', '=', v.articleId)
      .where('user_id', '=', v.userId)
      .execute();
  }
}

/** Move the article's vote_count (net) and votes_cast; returns both after the move. */
export async function addToArticleVotes(trx: Db, articleId: number, delta: { net: number; cast: number }) {
  return trx
    .updateTable('articles')
    .set({ vote_count: sql`vote_count + ${delta.net}`, votes_cast: sql`votes_cast + ${delta.cast}` })
    .where('id', '=', articleId)
    .returning(['vote_count', 'votes_cast'])
    .executeTakeFirstOrThrow();
}

/** The caller's vote on an article: 1, -1, or 0 when none. */
export async function myArticleVote(db: Db, articleId: number, userId: number): Promise<-1 | 0 | 1> {
  const r = await db.selectFrom('votes').select('weight').where('article_id', '=', articleId).where('user_id', '=', userId).executeTakeFirst();
  return (r?.weight ?? 0) as -1 | 0 | 1;
}

/** The caller's votes on some articles (e.g. one feed page): article id -> 1 or -1; one probe of the primary key per id. */
export async function myVotesOn(db: Db, userId: number, articleIds: readonly number[]): Promise<Map<number, -1 | 1>> {
  if (articleIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('votes')
    .select(['article_id', 'weight'])
    .where('user_id', '=', userId)
    .where('article_id', '=', sql<number>`ANY(${sql.val([...articleIds])}::int[])`)
    .execute();
  return new Map(rows.map((r) => [r.article_id, r.weight as -1 | 1]));
}
