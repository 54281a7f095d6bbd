// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';
import seed from '../data/20261201T110000_assets.json' with { type: 'json' };

/**
 * The asset registry and asset tags (docs/assets.md).
 *  - assets: one row per asset, keyed by its canonical slug; `source` says where it came from
 *    (curated list, staff, cryptocurrency-icons, MetaMask contract map, a Token List); `ambiguous`:
 *    its ticker is an everyday word and needs context.
 *  - asset_deployments: contract deployments as CAIP-19 ids (lowercase), one asset each.
 *  - asset_ambiguous_words: the staff-maintained words (tickers, names) that need context.
 *  - article_assets: an article's tags, from the worker or an editor; an editor's removal is kept
 *    (removed = true) so re-tagging never brings the tag back.
 *  - article_asset_fills: the token_symbols / token_addresses the worker filled in from the tags
 *    (only ever when both were empty); while the article still holds exactly these, re-tagging may
 *    refresh them, and once anybody changes them they are left alone.
 *  - wire_item_assets: a wire item's tags (worker only).
 * Seeded from db/data/20261201T110000_assets.json, written by `npm run assets:seed-data` from the
 * package data (cryptocurrency-icons CC0-1.0, @metamask/contract-metadata ISC) and the curated list.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE assets (
      id text PRIMARY KEY CHECK (id ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND char_length(id) <= 100),
      symbol text NOT NULL CHECK (char_length(symbol) BETWEEN 1 AND 40),
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
      aliases text[] NOT NULL DEFAULT '{}' CHECK (cardinality(aliases) <= 50),
      ambiguous boolean NOT NULL DEFAULT false,
      source text NOT NULL CHECK (source IN ('curated', 'staff', 'cryptocurrency-icons', 'metamask', 'token-list')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX assets_symbol_idx ON assets (upper(symbol))`.execute(db);
  await sql`
    CREATE TABLE asset_deployments (
      caip19 text PRIMARY KEY CHECK (caip19 = lower(caip19) OR caip19 LIKE 'solana:%'),
      asset_id text NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX asset_deployments_asset_idx ON asset_deployments (asset_id)`.execute(db);
  await sql`
    CREATE TABLE asset_ambiguous_words (
      word text PRIMARY KEY CHECK (word = lower(word) AND char_length(word) BETWEEN 1 AND 40),
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE TABLE article_assets (
      article_id integer NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
      asset_id text NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      salience real NOT NULL CHECK (salience BETWEEN 0 AND 1),
      is_primary boolean NOT NULL DEFAULT false,
      source text NOT NULL CHECK (source IN ('worker', 'editor')),
      removed boolean NOT NULL DEFAULT false CHECK (NOT removed OR source = 'editor'),
      updated_by integer REFERENCES users(id) ON DELETE SET NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (article_id, asset_id)
    )`.execute(db);
  await sql`CREATE INDEX article_assets_asset_idx ON article_assets (asset_id, article_id) WHERE NOT removed`.execute(db);
  await sql`
    CREATE TABLE article_asset_fills (
      article_id integer PRIMARY KEY REFERENCES articles(id) ON DELETE CASCADE,
      token_symbols text[] NOT NULL,
      token_addresses text[] NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE wire_item_assets (
      wire_item_id integer NOT NULL REFERENCES wire_items(id) ON DELETE CASCADE,
      asset_id text NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      salience real NOT NULL CHECK (salience BETWEEN 0 AND 1),
      is_primary boolean NOT NULL DEFAULT false,
      PRIMARY KEY (wire_item_id, asset_id)
    )`.execute(db);
  await sql`CREATE INDEX wire_item_assets_asset_idx ON wire_item_assets (asset_id)`.execute(db);
  await seedRegistry(db);
}

async function seedRegistry(db: Kysely<any>): Promise<void> {
  const assets = seed.assets;
  for (let i = 0; i < assets.length; i += 500) {
    const batch = assets.slice(i, i + 500);
    await db
      .insertInto('assets')
      .values(batch.map((a) => ({ id: a.id, symbol: a.symbol, name: a.name, aliases: a.aliases, ambiguous: a.ambiguous, source: a.source })))
      .execute();
    const deployments = batch.flatMap((a) => a.deployments.map((caip19) => ({ caip19, asset_id: a.id })));
    if (deployments.length > 0) await db.insertInto('asset_deployments').values(deployments).execute();
  }
  await db
    .insertInto('asset_ambiguous_words')
    .values(seed.ambiguous_words.map((word) => ({ word })))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE wire_item_assets, article_asset_fills, article_assets, asset_ambiguous_words, asset_deployments, assets`.execute(db);
}
