/**
 * SQL of mindshare (Kysely only): per asset, in a window (from, to], the stories, articles and
 * engagement that name it. Articles count when approved and not sponsored, by their tags that no
 * editor removed; wire items by their tags; stories through their members seen in the window.
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { isoTime } from '../platform/iso-time.js';
import type { AssetCounts, AssetStoryRow } from './rules/mindshare.js';

interface Window {
  from: Date;
  to: Date;
}

/** Articles published in the window, engagement in the window, and stories with a tagged member seen in it, per asset. */
export async function mindshareCounts(db: Db, w: Window): Promise<AssetCounts[]> {
  const r = await sql<AssetCounts>`
    WITH tags AS (
      SELECT t.article_id, t.asset_id, a.published_at
        FROM article_assets t JOIN articles a ON a.id = t.article_id
       WHERE NOT t.removed AND a.status = 'approved' AND a.sponsored IS NULL),
    arts AS (
      SELECT asset_id, count(*)::int AS n FROM tags
       WHERE published_at > ${w.from} AND published_at <= ${w.to} GROUP BY asset_id),
    acts AS (
      SELECT article_id, 1 AS v, 0 AS y, 0 AS c FROM votes WHERE created_at > ${w.from} AND created_at <= ${w.to}
      UNION ALL SELECT article_id, 0, 1, 0 FROM yaps WHERE created_at > ${w.from} AND created_at <= ${w.to}
      UNION ALL SELECT article_id, 0, 0, 1 FROM article_readers WHERE first_at > ${w.from} AND first_at <= ${w.to}),
    per_article AS (SELECT article_id, sum(v) AS v, sum(y) AS y, sum(c) AS c FROM acts GROUP BY article_id),
    eng AS (
      SELECT t.asset_id, sum(p.v)::int AS votes, sum(p.y)::int AS yaps, sum(p.c)::int AS clicks
        FROM per_article p JOIN tags t ON t.article_id = p.article_id GROUP BY t.asset_id),
    items AS (${taggedMembers(w)}),
    sto AS (SELECT asset_id, count(DISTINCT story_id)::int AS n FROM items GROUP BY asset_id),
    ids AS (SELECT asset_id FROM arts UNION SELECT asset_id FROM eng UNION SELECT asset_id FROM sto)
    SELECT ids.asset_id, s.symbol, s.name,
           COALESCE(sto.n, 0) AS stories, COALESCE(arts.n, 0) AS articles,
           COALESCE(eng.votes, 0) AS votes, COALESCE(eng.yaps, 0) AS yaps, COALESCE(eng.clicks, 0) AS clicks
      FROM ids JOIN assets s ON s.id = ids.asset_id
      LEFT JOIN arts ON arts.asset_id = ids.asset_id
      LEFT JOIN eng ON eng.asset_id = ids.asset_id
      LEFT JOIN sto ON sto.asset_id = ids.asset_id`.execute(db);
  return r.rows;
}

/** Story members seen in the window with the assets they are tagged with: public articles and wire items. */
function taggedMembers(w: Window) {
  return sql`
    SELECT m.story_id, t.asset_id
      FROM story_members m
      JOIN articles a ON m.item_kind = 'article' AND a.id = m.item_id AND a.status = 'approved' AND a.sponsored IS NULL
      JOIN article_assets t ON t.article_id = a.id AND NOT t.removed
     WHERE m.seen_at > ${w.from} AND m.seen_at <= ${w.to}
    UNION ALL
    SELECT m.story_id, wa.asset_id
      FROM story_members m JOIN wire_item_assets wa ON m.item_kind = 'wire' AND wa.wire_item_id = m.item_id
     WHERE m.seen_at > ${w.from} AND m.seen_at <= ${w.to}`;
}

/** Per asset, its `top` stories of the window by tagged members seen in it (ties: latest activity, higher id). */
export async function mindshareTopStories(db: Db, w: Window, top: number): Promise<AssetStoryRow[]> {
  const r = await sql<Omit<AssetStoryRow, 'last_seen_at'> & { last_seen_at: Date }>`
    WITH items AS (${taggedMembers(w)}),
    per AS (SELECT asset_id, story_id, count(*)::int AS items FROM items GROUP BY asset_id, story_id),
    ranked AS (
      SELECT per.asset_id, per.story_id, per.items, s.headline, s.member_count, s.source_count, s.last_seen_at,
             row_number() OVER (PARTITION BY per.asset_id ORDER BY per.items DESC, s.last_seen_at DESC, s.id DESC) AS rank
        FROM per JOIN stories s ON s.id = per.story_id)
    SELECT asset_id, story_id, items, headline, member_count, source_count, last_seen_at
      FROM ranked WHERE rank <= ${top}`.execute(db);
  return r.rows.map((row) => ({ ...row, last_seen_at: isoTime(row.last_seen_at) }));
}
