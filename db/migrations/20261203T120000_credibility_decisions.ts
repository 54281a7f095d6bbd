// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Staff decisions on credibility flags (src/credibility/, docs/credibility.md).
 *
 * - credibility_decisions: every confirm and clear, in order (the moderation log lists them). kind is
 *   the flag's kind, or `account` for a decision on one account; members the flag's accounts (sorted)
 *   or the one account. credibility_overrides keeps the decision in force per (month, kind, members).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE credibility_decisions (
      id serial PRIMARY KEY,
      month text NOT NULL,
      kind text NOT NULL,
      members integer[] NOT NULL,
      decision text NOT NULL CHECK (decision IN ('confirmed', 'cleared')),
      note text,
      decided_by integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX credibility_decisions_created_idx ON credibility_decisions (created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX credibility_decisions_month_idx ON credibility_decisions (month, created_at DESC)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS credibility_decisions`.execute(db);
}
