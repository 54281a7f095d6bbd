// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Feed filters and the authentication cache.
 *
 * Indexes for the feed's filters (GET /news/ and the syndication feeds):
 *  - tag (any of): GIN on articles.tags;
 *  - token_symbol (any of, case-insensitive): GIN on feed_upper_symbols(token_symbols), an
 *    immutable SQL function the query repeats verbatim so the planner matches the expression;
 *  - source: btree on (lower(source), published_at DESC, id DESC): the source's articles in
 *    publication order (the `new` sort of the approved feed reads a page straight from it).
 * since/until and the top window use the existing (status, published_at) / (status, created_at)
 * btrees; the top window walks (status, vote_count) or sorts the window's rows, whichever is cheaper.
 *
 * auth_generation: one row whose counter moves in the same transaction as every change that
 * must end a cached authentication decision: an API key revoked, rotated (new hash), re-tiered,
 * relinked or deleted; a user's roles changed or the user deleted. Web processes cache API-key
 * lookups and roles briefly and drop the cache whenever they see the counter move
 * (src/identity/auth-cache.ts). Triggers catch every writer (the API, the CLI, plain SQL).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION feed_upper_symbols(text[]) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT coalesce(array_agg(upper(s)), '{}') FROM unnest($1) AS s $$`.execute(db);
  await sql`CREATE INDEX articles_tags_idx ON articles USING gin (tags)`.execute(db);
  await sql`CREATE INDEX articles_token_symbols_upper_idx ON articles USING gin (feed_upper_symbols(token_symbols))`.execute(db);
  await sql`CREATE INDEX articles_source_published_idx ON articles (lower(source), published_at DESC, id DESC)`.execute(db);

  await sql`
    CREATE TABLE auth_generation (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      generation bigint NOT NULL DEFAULT 0
    )`.execute(db);
  await sql`INSERT INTO auth_generation (id, generation) VALUES (true, 0)`.execute(db);
  await sql`
    CREATE FUNCTION auth_generation_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE auth_generation SET generation = generation + 1 WHERE id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER api_keys_auth_generation AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN (OLD.key_hash IS DISTINCT FROM NEW.key_hash OR OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
          OR OLD.tier IS DISTINCT FROM NEW.tier OR OLD.user_id IS DISTINCT FROM NEW.user_id)
    EXECUTE FUNCTION auth_generation_bump()`.execute(db);
  await sql`CREATE TRIGGER api_keys_auth_generation_delete AFTER DELETE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION auth_generation_bump()`.execute(db);
  await sql`
    CREATE TRIGGER users_auth_generation AFTER UPDATE OF roles ON users FOR EACH ROW
    WHEN (OLD.roles IS DISTINCT FROM NEW.roles)
    EXECUTE FUNCTION auth_generation_bump()`.execute(db);
  await sql`CREATE TRIGGER users_auth_generation_delete AFTER DELETE ON users FOR EACH STATEMENT EXECUTE FUNCTION auth_generation_bump()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS users_auth_generation_delete ON users`.execute(db);
  await sql`DROP TRIGGER IF EXISTS users_auth_generation ON users`.execute(db);
  await sql`DROP TRIGGER IF EXISTS api_keys_auth_generation_delete ON api_keys`.execute(db);
  await sql`DROP TRIGGER IF EXISTS api_keys_auth_generation ON api_keys`.execute(db);
  await sql`DROP FUNCTION IF EXISTS auth_generation_bump()`.execute(db);
  await sql`DROP TABLE IF EXISTS auth_generation`.execute(db);
  await sql`DROP INDEX IF EXISTS articles_source_published_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS articles_token_symbols_upper_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS articles_tags_idx`.execute(db);
  await sql`DROP FUNCTION IF EXISTS feed_upper_symbols(text[])`.execute(db);
}
