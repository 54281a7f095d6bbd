// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * The evidence the credibility rules read (docs/credibility.md), recorded as it happens:
 *
 * - sign_in_fingerprints gains `via` (wallet: a wallet sign-in; api_key: a request authenticated
 *   with an API key linked to the account), `api_key_id` (the key's public id, never its secret) and
 *   `day` (UTC). One row per account, way, key, hashed address, hashed user agent and day: `at` is the
 *   first time that day. Address and user agent are stored as keyed hashes only.
 * - article_readers (already present) is written by the click-through GET /news/{id}/click.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE sign_in_fingerprints
      ADD COLUMN via text NOT NULL DEFAULT 'wallet' CHECK (via IN ('wallet', 'api_key')),
      ADD COLUMN api_key_id text REFERENCES api_keys(id) ON DELETE SET NULL,
      ADD COLUMN day date NOT NULL DEFAULT (now() AT TIME ZONE 'utc')::date`.execute(db);
  await sql`
    CREATE UNIQUE INDEX sign_in_fingerprints_once_a_day_key
      ON sign_in_fingerprints (user_id, via, ip_hash, ua_hash, day, (coalesce(api_key_id, '')))`.execute(db);
  await sql`CREATE INDEX sign_in_fingerprints_ip_idx ON sign_in_fingerprints (ip_hash)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS sign_in_fingerprints_ip_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS sign_in_fingerprints_once_a_day_key`.execute(db);
  await sql`ALTER TABLE sign_in_fingerprints DROP COLUMN day, DROP COLUMN api_key_id, DROP COLUMN via`.execute(db);
}
