/** SQL of the assets feature: the registry, article and wire item tags (Kysely only). */
import { sql, type RawBuilder } from 'kysely';
import type { PageTitleRow, PageTitleUpdate } from '../articles/index.js';
import { executePrepared, type Db } from '../platform/db.js';
import type { AssetRecord, AssetSource } from './rules/registry.js';

/** A cheap fingerprint of the registry: changes whenever an asset, deployment or ambiguous word does. */
export async function registryVersion(db: Db): Promise<string> {
  const r = await sql<{ v: string }>`
    SELECT concat_ws('/', (SELECT count(*) FROM assets), (SELECT max(updated_at) FROM assets),
                     (SELECT count(*) FROM asset_deployments), (SELECT count(*) FROM asset_ambiguous_words),
                     (SELECT max(created_at) FROM asset_ambiguous_words)) AS v`.execute(db);
  return r.rows[0].v;
}

export async function loadRegistry(db: Db): Promise<{ assets: AssetRecord[]; ambiguousWords: string[] }> {
  const rows = await db
    .selectFrom('assets as s')
    .select(['s.id', 's.symbol', 's.name', 's.aliases', 's.ambiguous', 's.source'])
    .select(sql<string[]>`COALESCE((SELECT array_agg(d.caip19 ORDER BY d.caip19) FROM asset_deployments d WHERE d.asset_id = s.id), '{}')`.as('deployments'))
    .orderBy('s.id')
    .execute();
  const words = await db.selectFrom('asset_ambiguous_words').select('word').execute();
  return { assets: rows.map((r) => ({ ...r, source: r.source as AssetSource })), ambiguousWords: words.map((w) => w.word) };
}

interface AssetRow {
  id: string;
  symbol: string;
  name: string;
  aliases: string[];
  ambiguous: boolean;
  source: string;
  deployments: string[];
}

export async function getAsset(db: Db, id: string): Promise<AssetRow | undefined> {
  return db
    .selectFrom('assets as s')
    .select(['s.id', 's.symbol', 's.name', 's.aliases', 's.ambiguous', 's.source'])
    .select(sql<string[]>`COALESCE((SELECT array_agg(d.caip19 ORDER BY d.caip19) FROM asset_deployments d WHERE d.asset_id = s.id), '{}')`.as('deployments'))
    .where('s.id', '=', id)
    .executeTakeFirst();
}

/** Registry search: exact id or symbol first, then name, alias and symbol prefixes, then substrings of the name. */
export async function searchAssets(db: Db, q: string, limit: number) {
  const lower = q.toLowerCase();
  const like = `${lower.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const inner = `%${lower.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return db
    .selectFrom('assets as s')
    .select(['s.id', 's.symbol', 's.name', 's.aliases'])
    .where((eb) =>
      eb.or([
        eb('s.id', '=', lower),
        sql<boolean>`lower(s.symbol) = ${lower}`,
        sql<boolean>`lower(s.name) LIKE ${inner}`,
        sql<boolean>`lower(s.symbol) LIKE ${like}`,
        sql<boolean>`EXISTS (SELECT 1 FROM unnest(s.aliases) x WHERE lower(x) LIKE ${like})`,
      ]),
    )
    .orderBy(sql`CASE WHEN s.id = ${lower} OR lower(s.symbol) = ${lower} THEN 0 WHEN s.source IN ('curated', 'staff') THEN 1 WHEN lower(s.name) LIKE ${like} THEN 2 ELSE 3 END`)
    .orderBy('s.id')
    .limit(limit)
    .execute();
}

/** The ids among `ids` that the registry does not know. */
export async function unknownAssetIds(db: Db, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const known = await db
    .selectFrom('assets')
    .select('id')
    .where('id', 'in', [...ids])
    .execute();
  const set = new Set(known.map((k) => k.id));
  return ids.filter((id) => !set.has(id));
}

export async function articleForTagging(db: Db, id: number) {
  return db.selectFrom('articles').select(['id', 'headline', 'status', 'token_symbols', 'token_addresses']).where('id', '=', id).executeTakeFirst();
}

export async function wireItemForTagging(db: Db, id: number) {
  return db.selectFrom('wire_items').select(['id', 'title', 'summary']).where('id', '=', id).executeTakeFirst();
}

export interface TagRow {
  asset_id: string;
  salience: number;
  is_primary: boolean;
  source: 'worker' | 'editor';
  removed: boolean;
}

/** An article's tag rows, locked for the caller's transaction. */
export async function lockArticleTags(db: Db, articleId: number): Promise<TagRow[]> {
  return db.selectFrom('article_assets').select(['asset_id', 'salience', 'is_primary', 'source', 'removed']).where('article_id', '=', articleId).forUpdate().execute();
}

export async function upsertTags(
  db: Db,
  articleId: number,
  rows: readonly { asset_id: string; salience: number; is_primary: boolean; source: 'worker' | 'editor'; removed: boolean; updated_by: number | null }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('article_assets')
    .values(rows.map((r) => ({ article_id: articleId, ...r, updated_at: sql<Date>`now()` })))
    .onConflict((oc) =>
      oc.columns(['article_id', 'asset_id']).doUpdateSet((eb) => ({
        salience: eb.ref('excluded.salience'),
        is_primary: eb.ref('excluded.is_primary'),
        source: eb.ref('excluded.source'),
        removed: eb.ref('excluded.removed'),
        updated_by: eb.ref('excluded.updated_by'),
        updated_at: sql<Date>`now()`,
      })),
    )
    .execute();
}

interface WorkerTag {
  asset_id: string;
  salience: number;
  is_primary: boolean;
}

type Fill = { token_symbols: string[]; token_addresses: string[] } | null;

/** CTEs `t` (the worker's new tags) and `before` (the article's tag rows as the statement starts). */
function tagInputs(articleId: number, tags: readonly WorkerTag[]) {
  return sql`t AS (
      SELECT * FROM unnest(${tags.map((x) => x.asset_id)}::text[], ${tags.map((x) => x.salience)}::float8[], ${tags.map((x) => x.is_primary)}::bool[]) AS t(asset_id, salience, is_primary)
    ), before AS (
      SELECT asset_id, salience, is_primary, source, removed FROM article_assets WHERE article_id = ${articleId}
    )`;
}

/**
 * CTEs replacing the worker's tags with `t` when `when` holds: worker rows not among them deleted,
 * the others upserted; an editor's row for the same asset is left as it is. Rows another
 * transaction holds are waited for and re-checked (the DELETE and the upsert's WHERE see their
 * latest version).
 */
function tagWrites(articleId: number, when: RawBuilder<boolean>) {
  return sql`gone AS (
      DELETE FROM article_assets WHERE article_id = ${articleId} AND source = 'worker' AND asset_id <> ALL(ARRAY(SELECT asset_id FROM t)) AND ${when}
    ), put AS (
      INSERT INTO article_assets (article_id, asset_id, salience, is_primary, source, removed, updated_by, updated_at)
      SELECT ${articleId}, t.asset_id, t.salience, t.is_primary, 'worker', false, NULL, now() FROM t WHERE ${when}
      ON CONFLICT (article_id, asset_id) DO UPDATE SET salience = excluded.salience, is_primary = excluded.is_primary, updated_at = now()
        WHERE article_assets.source = 'worker'
    )`;
}

/**
 * In one statement: replace an article's worker tags with `tags` (see tagWrites) and return its tag
 * rows as they were before, with its fill record (null when never filled).
 */
export async function replaceWorkerTags(db: Db, articleId: number, tags: readonly WorkerTag[]): Promise<{ before: TagRow[]; fill: Fill }> {
  const r = await sql<{ before: TagRow[]; fill: Fill }>`
    WITH ${tagInputs(articleId, tags)}, ${tagWrites(articleId, sql<boolean>`true`)}
    SELECT (SELECT coalesce(json_agg(before), '[]'::json) FROM before) AS before,
           (SELECT json_build_object('token_symbols', f.token_symbols, 'token_addresses', f.token_addresses)
              FROM article_asset_fills f WHERE f.article_id = ${articleId}) AS fill`.execute(db);
  return r.rows[0];
}

/**
 * The page title's UPDATE (`update`, from the articles feature) with the new headline's tags, in
 * one statement: the worker's tags replaced (see tagWrites) and the token fields filled with `next`
 * (the tags' symbols and addresses) when the fill rule lets them change, both only when the
 * headline was written. Here the rule is decided for an article without an editor's tag row (the
 * tags are then exactly the worker's): its fields are untouched (still the worker's last fill, or
 * empty and never filled) and differ from `next`; with an editor's row nothing is filled and the
 * caller applies the rule to the rows returned. The article's row is locked before the decision, so
 * the decision sees the fields the UPDATE overwrites. Returns the updated row with its tag rows as
 * they were before and its fill record; undefined when the headline is no longer provisional.
 */
export async function writeTaggedPageTitle(db: Db, update: PageTitleUpdate, articleId: number, tags: readonly WorkerTag[], next: { symbols: string[]; addresses: string[] }) {
  const symbols = sql`${next.symbols}::text[]`;
  const addresses = sql`${next.addresses}::text[]`;
  const filled = update.set({
    token_symbols: sql<string[]>`CASE WHEN (SELECT fill FROM d) THEN ${symbols} ELSE articles.token_symbols END`,
    token_addresses: sql<string[]>`CASE WHEN (SELECT fill FROM d) THEN ${addresses} ELSE articles.token_addresses END`,
  });
  const r = await executePrepared(
    db,
    sql<PageTitleRow & { before: TagRow[]; fill: Fill }>`
    WITH ${tagInputs(articleId, tags)}, d AS (
      SELECT NOT EXISTS (SELECT 1 FROM before WHERE source = 'editor')
             AND CASE WHEN f.article_id IS NOT NULL THEN f.token_symbols = a.token_symbols AND f.token_addresses = a.token_addresses
                      ELSE cardinality(a.token_symbols) = 0 AND cardinality(a.token_addresses) = 0 END
             AND NOT (a.token_symbols = ${symbols} AND a.token_addresses = ${addresses}) AS fill,
             CASE WHEN f.article_id IS NOT NULL THEN json_build_object('token_symbols', f.token_symbols, 'token_addresses', f.token_addresses) END AS last_fill
        FROM articles a LEFT JOIN article_asset_fills f ON f.article_id = a.id
       WHERE a.id = ${articleId} AND a.headline_source = 'provisional'
         FOR UPDATE OF a
    ), upd AS (${filled}), ${tagWrites(articleId, sql<boolean>`EXISTS (SELECT 1 FROM upd)`)}, kept AS (
      INSERT INTO article_asset_fills (article_id, token_symbols, token_addresses)
      SELECT ${articleId}, ${symbols}, ${addresses} FROM d WHERE d.fill AND EXISTS (SELECT 1 FROM upd)
      ON CONFLICT (article_id) DO UPDATE SET token_symbols = excluded.token_symbols, token_addresses = excluded.token_addresses
    )
    SELECT upd.*, (SELECT coalesce(json_agg(before), '[]'::json) FROM before) AS before, d.last_fill AS fill FROM upd, d`,
  );
  return r.rows[0];
}

/** Write the token fields filled from the tags, and remember them as the worker's fill: one statement. */
export async function writeFill(db: Db, articleId: number, symbols: string[], addresses: string[]): Promise<void> {
  await sql`
    WITH fill AS (
      INSERT INTO article_asset_fills (article_id, token_symbols, token_addresses) VALUES (${articleId}, ${symbols}::text[], ${addresses}::text[])
      ON CONFLICT (article_id) DO UPDATE SET token_symbols = excluded.token_symbols, token_addresses = excluded.token_addresses
    )
    UPDATE articles SET token_symbols = ${symbols}::text[], token_addresses = ${addresses}::text[], updated_at = now() WHERE id = ${articleId}`.execute(db);
}

/** Symbols and EVM mainnet addresses of assets, for filling an article's token fields. */
export async function tokenFieldsOf(db: Db, assetIds: readonly string[]): Promise<{ symbols: string[]; addresses: string[] }> {
  if (assetIds.length === 0) return { symbols: [], addresses: [] };
  const rows = await db
    .selectFrom('assets')
    .select(['id', 'symbol'])
    .where('id', 'in', [...assetIds])
    .execute();
  const deps = await db
    .selectFrom('asset_deployments')
    .select(['asset_id', 'caip19'])
    .where('asset_id', 'in', [...assetIds])
    .where('caip19', 'like', 'eip155:1/erc20:%')
    .execute();
  const order = (id: string) => assetIds.indexOf(id);
  return {
    symbols: rows.sort((a, b) => order(a.id) - order(b.id)).map((r) => r.symbol.toUpperCase()),
    addresses: deps.sort((a, b) => order(a.asset_id) - order(b.asset_id)).map((d) => d.caip19.slice('eip155:1/erc20:'.length)),
  };
}

export async function getFill(db: Db, articleId: number) {
  return db.selectFrom('article_asset_fills').select(['token_symbols', 'token_addresses']).where('article_id', '=', articleId).executeTakeFirst();
}

export async function replaceWireTags(db: Db, wireItemId: number, tags: readonly { asset_id: string; salience: number; is_primary: boolean }[]): Promise<void> {
  await db.deleteFrom('wire_item_assets').where('wire_item_id', '=', wireItemId).execute();
  if (tags.length > 0)
    await db
      .insertInto('wire_item_assets')
      .values(tags.map((t) => ({ wire_item_id: wireItemId, ...t })))
      .execute();
}

export async function insertAsset(db: Db, a: { id: string; symbol: string; name: string; aliases: string[]; ambiguous: boolean }): Promise<boolean> {
  const r = await db
    .insertInto('assets')
    .values({ ...a, source: 'staff' })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function insertDeployments(db: Db, assetId: string, caip19s: readonly string[]): Promise<void> {
  if (caip19s.length === 0) return;
  await db
    .insertInto('asset_deployments')
    .values(caip19s.map((caip19) => ({ caip19, asset_id: assetId })))
    .onConflict((oc) => oc.column('caip19').doNothing())
    .execute();
}

export async function addAliases(db: Db, id: string, aliases: readonly string[]): Promise<boolean> {
  const r = await db
    .updateTable('assets')
    .set({ aliases: sql<string[]>`ARRAY(SELECT DISTINCT unnest(aliases || ${sql.val([...aliases])}::text[]))`, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function setAmbiguous(db: Db, id: string, ambiguous: boolean): Promise<boolean> {
  const r = await db
    .updateTable('assets')
    .set({ ambiguous, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function insertAmbiguousWord(db: Db, word: string): Promise<void> {
  await db
    .insertInto('asset_ambiguous_words')
    .values({ word })
    .onConflict((oc) => oc.column('word').doNothing())
    .execute();
}

const CHUNK = 1000;

/** Assets a token list adds (source `token-list`); an id taken meanwhile is left as it is. */
export async function insertListAssets(db: Db, rows: readonly { id: string; symbol: string; name: string }[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('assets')
      .values(rows.slice(i, i + CHUNK).map((r) => ({ id: r.id, symbol: r.symbol, name: r.name, aliases: [], ambiguous: false, source: 'token-list' })))
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}

/** Deployments a token list adds; one already held by an asset keeps its asset. */
export async function insertDeploymentRows(db: Db, rows: readonly { asset_id: string; caip19: string }[]): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('asset_deployments')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.column('caip19').doNothing())
      .execute();
  }
}

/** An article's tag rows with the registry's symbol and name, for the editors' console: visible ones by salience, then editors' removals. */
export async function articleTagsForEditors(db: Db, articleId: number) {
  return db
    .selectFrom('article_assets as t')
    .innerJoin('assets as s', 's.id', 't.asset_id')
    .select(['t.asset_id as id', 's.symbol', 's.name', 't.salience', 't.is_primary as primary', 't.source', 't.removed'])
    .where('t.article_id', '=', articleId)
    .orderBy('t.removed')
    .orderBy('t.salience', 'desc')
    .orderBy('t.asset_id')
    .execute();
}
