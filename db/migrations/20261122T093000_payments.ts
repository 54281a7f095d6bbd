// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // One row per accepted payment (x402 authorization or mainnet transfer). replay_key is the
  // durable half of the replay guard (Redis SET NX is the fast half): an EIP-3009 authorization
  // (network, token, payer, nonce) or a mainnet transaction hash pays exactly once.
  // State: verified -> settling -> settled | failed (x402, settled by the settle-payment job);
  // a mainnet transfer is already on chain and is inserted as settled.
  await sql`
    CREATE TABLE payments (
      id text PRIMARY KEY CHECK (id ~ '^pay_[A-Za-z0-9_-]{22}$'),
      method text NOT NULL CHECK (method IN ('x402', 'mainnet_transfer')),
      purpose text NOT NULL CHECK (purpose IN ('intel_report', 'sponsored_post')),
      replay_key text NOT NULL,
      network text NOT NULL,
      asset text NOT NULL,
      payer text NOT NULL CHECK (payer ~ '^0x[0-9a-f]{40}$'),
      pay_to text NOT NULL CHECK (pay_to ~ '^0x[0-9a-f]{40}$'),
      amount_atomic text NOT NULL CHECK (amount_atomic ~ '^[0-9]{1,78}$'),
      state text NOT NULL CHECK (state IN ('verified', 'settling', 'settled', 'failed')),
      valid_before timestamptz,
      payload jsonb,
      transaction_hash text,
      settle_attempts integer NOT NULL DEFAULT 0,
      last_error text,
      resource text NOT NULL,
      article_id integer REFERENCES articles (id) ON DELETE SET NULL,
      user_id integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      settled_at timestamptz
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX payments_replay_key_key ON payments (replay_key)`.execute(db);
  await sql`CREATE INDEX payments_state_created_idx ON payments (state, created_at)`.execute(db);
  await sql`CREATE INDEX payments_payer_created_idx ON payments (payer, created_at DESC)`.execute(db);
  await sql`CREATE INDEX payments_article_idx ON payments (article_id) WHERE article_id IS NOT NULL`.execute(db);
  // Intel: sponsored posts are listed for editors by ad state.
  await sql`CREATE INDEX articles_sponsored_idx ON articles ((sponsored ->> 'ad_status'), created_at DESC) WHERE sponsored IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS articles_sponsored_idx`.execute(db);
  await sql`DROP TABLE payments`.execute(db);
}
