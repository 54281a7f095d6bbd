// Frozen: never edit after it lands.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Refresh tokens: one row per issued token; rotation marks the row used and issues a new row in
  // the same family. Presenting a used token again revokes the whole family (theft detection).
  await sql`
    CREATE TABLE refresh_tokens (
      id text PRIMARY KEY,
      family text NOT NULL,
      user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      revoked_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family)`.execute(db);
  await sql`CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id)`.execute(db);

  // API keys: only a SHA-256 hash of the raw key is stored. The id is the unguessable dashboard id.
  await sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      key_hash text NOT NULL,
      key_first4 text NOT NULL,
      key_last4 text NOT NULL,
      tier text NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'builder', 'enterprise')),
      name text NOT NULL,
      email text,
      use_case text,
      user_id integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      rotated_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash)`.execute(db);
  await sql`CREATE INDEX api_keys_user_idx ON api_keys (user_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE api_keys, refresh_tokens`.execute(db);
}
