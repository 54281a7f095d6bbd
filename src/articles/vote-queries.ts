/**
 * Article votes. One vote per user per article (primary key); vote_count (net) and votes_cast are
 * kept exact under concurrency: every vote on an article first takes that article's row lock
 * (FOR NO KEY UPDATE, which still lets yaps and votes reference the row), so the read of the
 * previous vote and the counter update see every earlier vote on it.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { OPEN_STATUSES } from './rules/state.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';

type VoteOutcome =
  | { ok: true; weight: -1 | 0 | 1; previous: -1 | 0 | 1; vote_count: number; votes_cast: number }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'closed'; status: string };

export async function castArticleVote(db: Db, articleId: number, userId: number, weight: -1 | 0 | 1): Promise<VoteOutcome> {
  return db.transaction().execute(async (trx) => {
    const art = await trx.selectFrom('articles').select(['id', 'status']).where('id', '=', articleId).forNoKeyUpdate().executeTakeFirst();
    if (!art) return { ok: false, reason: 'not_found' } as const;
    if (!OPEN_STATUSES.includes(art.status)) return { ok: false, reason: 'closed', status: art.status } as const;
    const old = await trx.selectFrom('votes').select('weight').where('article_id', '=', articleId).where('user_id', '=', userId).executeTakeFirst();
    const previous = (old?.weight ?? 0) as -1 | 0 | 1;
    if (weight === 0) {
      if (old) await trx.deleteFrom('votes').where('article_id', '=', articleId).where('user_id', '=', userId).execute();
    } else if (!old) {
      await trx.insertInto('votes').values({ article_id: articleId, user_id: userId, weight }).execute();
    } else if (old.weight !== weight) {
      await trx
        .updateTable('votes')
        .set({ weight, updated_at: sql`now()` })
        .where('article_id', '=', articleId)
        .where('user_id', '=', userId)
        .execute();
    }
    const castDelta = (weight !== 0 ? 1 : 0) - (previous !== 0 ? 1 : 0);
    const counts = await trx
      .updateTable('articles')
      .set({ vote_count: sql`vote_count + ${weight - previous}`, votes_cast: sql`votes_cast + ${castDelta}` })
      .where('id', '=', articleId)
      .returning(['vote_count', 'votes_cast'])
      .executeTakeFirstOrThrow();
    // The feed shows vote_count and votes: its cached pages (and their ETags) must change.
    if (weight !== previous) await recordEvents(trx, [internalEvent('article.voted', articleId)]);
    return { ok: true, weight, previous, ...counts } as const;
  });
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
