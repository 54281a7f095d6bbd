/**
 * Yaps (comments) and their votes. yap_count on the article and vote_score on the yap are kept
 * exact the same way as article votes: the writer holds the parent row's lock.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { OPEN_STATUSES } from './rules/state.js';
import { baseScoreFor } from './rules/yap.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';

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

type PostYapOutcome = { ok: true; yap: YapRow } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'closed'; status: string };

export async function insertYap(db: Db, input: { articleId: number; userId: number; text: string; tags: string[] }): Promise<PostYapOutcome> {
  return db.transaction().execute(async (trx) => {
    const art = await trx
      .updateTable('articles')
      .set({ yap_count: sql`yap_count + 1` })
      .where('id', '=', input.articleId)
      .where('status', 'in', [...OPEN_STATUSES])
      .returning('id')
      .executeTakeFirst();
    if (!art) {
      const cur = await trx.selectFrom('articles').select('status').where('id', '=', input.articleId).executeTakeFirst();
      return cur ? ({ ok: false, reason: 'closed', status: cur.status } as const) : ({ ok: false, reason: 'not_found' } as const);
    }
    const author = await trx.selectFrom('users').select(['id', 'username', 'wallet_address', 'account_type']).where('id', '=', input.userId).executeTakeFirstOrThrow();
    const y = await trx
      .insertInto('yaps')
      .values({ article_id: input.articleId, user_id: input.userId, text: input.text, tags: input.tags, base_score: baseScoreFor(author.account_type) })
      .returning(['id', 'article_id', 'text', 'tags', 'base_score', 'vote_score', 'score', 'created_at', 'user_id'])
      .executeTakeFirstOrThrow();
    // The relay retires the feed cache (yap_count, top_tldr) and schedules the article's hot-score recompute.
    await recordEvents(trx, [internalEvent('article.yap_posted', input.articleId, { yap_id: y.id })]);
    return {
      ok: true,
      yap: { ...y, score: y.score ?? y.base_score + y.vote_score, username: author.username, wallet_address: author.wallet_address, account_type: author.account_type },
    } as const;
  });
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

type YapVoteOutcome =
  | { ok: true; weight: -1 | 0 | 1; vote_score: number; score: number }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'own_yap' }
  | { ok: false; reason: 'closed'; status: string };

/** Vote on a yap of the given article (1, -1, 0 clears). The yap's row lock serialises its votes. */
export async function castYapVote(db: Db, input: { articleId: number; yapId: number; userId: number; weight: -1 | 0 | 1 }): Promise<YapVoteOutcome> {
  return db.transaction().execute(async (trx) => {
    const yap = await trx
      .selectFrom('yaps as y')
      .innerJoin('articles as a', 'a.id', 'y.article_id')
      .select(['y.id', 'y.user_id', 'a.status'])
      .where('y.id', '=', input.yapId)
      .where('y.article_id', '=', input.articleId)
      .forNoKeyUpdate('y')
      .executeTakeFirst();
    if (!yap) return { ok: false, reason: 'not_found' } as const;
    if (yap.user_id === input.userId) return { ok: false, reason: 'own_yap' } as const;
    if (!OPEN_STATUSES.includes(yap.status)) return { ok: false, reason: 'closed', status: yap.status } as const;
    const old = await trx.selectFrom('yap_votes').select('weight').where('yap_id', '=', input.yapId).where('user_id', '=', input.userId).executeTakeFirst();
    const previous = old?.weight ?? 0;
    if (input.weight === 0) {
      if (old) await trx.deleteFrom('yap_votes').where('yap_id', '=', input.yapId).where('user_id', '=', input.userId).execute();
    } else if (!old) {
      await trx.insertInto('yap_votes').values({ yap_id: input.yapId, user_id: input.userId, weight: input.weight }).execute();
    } else if (old.weight !== input.weight) {
      await trx
        .updateTable('yap_votes')
        .set({ weight: input.weight, updated_at: sql`now()` })
        .where('yap_id', '=', input.yapId)
        .where('user_id', '=', input.userId)
        .execute();
    }
    const r = await trx
      .updateTable('yaps')
      .set({ vote_score: sql`vote_score + ${input.weight - previous}` })
      .where('id', '=', input.yapId)
      .returning(['vote_score', 'score'])
      .executeTakeFirstOrThrow();
    // The yap's score may change the article's top_tldr on feed pages.
    if (input.weight !== previous) await recordEvents(trx, [internalEvent('article.voted', input.articleId, { yap_id: input.yapId })]);
    return { ok: true, weight: input.weight, vote_score: r.vote_score, score: r.score ?? 0 } as const;
  });
}
