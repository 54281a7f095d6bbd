/**
 * The feed collapsed by story (GET /news/?collapse=story): one item per story, the story's
 * best-ranked matching article in the page's own order, plus every matching article that has no
 * story yet (each is its own group). The filter, the sort keys and the item columns are the
 * uncollapsed feed's (src/articles/queries.ts), so a collapsed page lists exactly the group leaders
 * of the uncollapsed ordering, in that ordering.
 *
 * Cost: the leaders are found by a window over every article matching the filter (one sort of the
 * matches), not by walking an index as the uncollapsed page does; the page is cached like any other
 * (the feed cache keys it by its query string, which holds `collapse`).
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { assetsJson, feedTimeColumn, feedWhere, itemColumns, tldrJson, type ArticleItemRow, type FeedFilter, type FeedQuery } from './queries.js';

/** A collapsed feed item: the article and its story's size (null when it has no story). */
export interface CollapsedItemRow extends ArticleItemRow {
  story_size: number | null;
  story_sources: number | null;
}

/** The group of an article: its story, or the article alone (negative ids never collide with story ids). */
const groupKey = sql`COALESCE(a.story_id, -a.id)`;

/** Every matching article with its sort key and its rank inside its group (1: the group's leader). */
function ranked(db: Db, q: FeedQuery) {
  if (q.sort === 'hot') {
    return db
      .selectFrom('article_hot_scores as h')
      .innerJoin('articles as a', 'a.id', 'h.article_id')
      .select(['a.id', sql.ref<number | Date | null>('h.hot_score').as('sort_key')])
      .select(sql<number>`row_number() OVER (PARTITION BY ${groupKey} ORDER BY h.hot_score DESC, a.id DESC)`.as('rn'))
      .where(feedWhere(q, 'h'));
  }
  const key = sql.ref<number | Date | null>(q.sort === 'top' ? 'a.vote_count' : feedTimeColumn(q.status));
  return db
    .selectFrom('articles as a')
    .select(['a.id', key.as('sort_key')])
    .select(sql<number>`row_number() OVER (PARTITION BY ${groupKey} ORDER BY ${key} DESC, a.id DESC)`.as('rn'))
    .where(feedWhere(q));
}

/** The ids and sort keys of one collapsed page, in feed order (sort key desc, id desc). */
function pickCollapsed(db: Db, q: FeedQuery) {
  return db
    .selectFrom(ranked(db, q).as('m'))
    .select(['m.id', 'm.sort_key'])
    .where('m.rn', '=', 1)
    .orderBy('m.sort_key', 'desc')
    .orderBy('m.id', 'desc')
    .limit(q.perPage)
    .offset((q.page - 1) * q.perPage)
    .as('p');
}

/** The number of groups (stories, and articles without one) matching the filter: the collapsed feed's `count`. */
function collapsedCountQuery(db: Db, q: FeedFilter) {
  return db
    .selectFrom('articles as a')
    .select(sql<string>`count(DISTINCT ${groupKey})`.as('n'))
    .where(feedWhere(q));
}

/** One collapsed page; with `withCount`, the number of groups too (one more statement only for a page past the end). */
export async function collapsedFeedPage(db: Db, q: FeedQuery, withCount: boolean): Promise<{ rows: CollapsedItemRow[]; count: number | null }> {
  let page = db
    .selectFrom(pickCollapsed(db, q))
    .innerJoin('articles as a', 'a.id', 'p.id')
    .innerJoin('article_hot_scores as h', 'h.article_id', 'p.id')
    .leftJoin('stories as st', 'st.id', 'a.story_id')
    .select([...itemColumns, 'st.member_count as story_size', 'st.source_count as story_sources'])
    .select(tldrJson.as('top_tldr'))
    .select(assetsJson.as('assets'))
    .orderBy('p.sort_key', 'desc')
    .orderBy('p.id', 'desc');
  if (withCount) page = page.select(collapsedCountQuery(db, q).as('total_count')) as unknown as typeof page;
  const rows = (await page.execute()) as unknown as (CollapsedItemRow & { total_count?: string | number })[];
  if (!withCount) return { rows, count: null };
  const count = rows.length > 0 ? Number(rows[0]!.total_count) : Number((await collapsedCountQuery(db, q).executeTakeFirstOrThrow()).n);
  for (const r of rows) delete r.total_count;
  return { rows, count };
}
