// Frozen: never edit after it lands. Later changes get a new timestamped file.
// Leaderboard snapshots, DAO reward allocations, monthly distributions and their Merkle drops.
import { sql, type Kysely } from 'kysely';

const MONTH = `'^[0-9]{4}-(0[1-9]|1[0-2])$'`;

export async function up(db: Kysely<any>): Promise<void> {
  // One row per computed month. frozen_at is set by the monthly distribution: a frozen month is never
  // recomputed again, so the published drops always match the snapshot they were derived from.
  await sql`
    CREATE TABLE leaderboard_snapshots (
      month text PRIMARY KEY CHECK (month ~ ${sql.raw(MONTH)}),
      computed_at timestamptz NOT NULL,
      frozen_at timestamptz,
      duration_ms integer NOT NULL DEFAULT 0,
      totals jsonb NOT NULL DEFAULT '{}'
    )`.execute(db);

  // The ranked entries of a snapshot. board is one of the four reward categories or 'engagement'.
  // activity_count is the measured quantity (integer); score is what is ranked (equal to
  // activity_count except on the engagement board); market_share is percent of the board's total.
  // Derived data rewritten wholesale every few minutes (tens of thousands of rows a month): no
  // foreign keys, whose per-row checks would dominate the rewrite; readers join users anyway.
  await sql`
    CREATE TABLE leaderboard_entries (
      month text NOT NULL,
      board text NOT NULL CHECK (board IN ('top_posters', 'top_yappers', 'top_voters', 'top_editors', 'engagement')),
      user_id integer NOT NULL,
      rank integer NOT NULL CHECK (rank >= 1),
      activity_count bigint NOT NULL,
      score double precision NOT NULL,
      market_share double precision NOT NULL,
      PRIMARY KEY (month, board, user_id)
    )`.execute(db);
  await sql`CREATE INDEX leaderboard_entries_rank_idx ON leaderboard_entries (month, board, rank, user_id)`.execute(db);

  // Month ranges for the leaderboard computation.
  await sql`CREATE INDEX votes_created_idx ON votes (created_at)`.execute(db);
  await sql`CREATE INDEX yaps_created_idx ON yaps (created_at)`.execute(db);

  // The DAO's split of the monthly pool for the month it applies to, in basis points (sum 10000).
  await sql`
    CREATE TABLE reward_allocations (
      month text PRIMARY KEY CHECK (month ~ ${sql.raw(MONTH)}),
      top_posters_bp integer NOT NULL CHECK (top_posters_bp BETWEEN 0 AND 10000),
      top_yappers_bp integer NOT NULL CHECK (top_yappers_bp BETWEEN 0 AND 10000),
      top_voters_bp integer NOT NULL CHECK (top_voters_bp BETWEEN 0 AND 10000),
      top_editors_bp integer NOT NULL CHECK (top_editors_bp BETWEEN 0 AND 10000),
      note text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (top_posters_bp + top_yappers_bp + top_voters_bp + top_editors_bp = 10000)
    )`.execute(db);

  // One row per distributed month (the primary key makes a second distribution impossible).
  // Amounts are integer base units of the 18-decimal token, as numeric(78,0) (fits any uint256).
  await sql`
    CREATE TABLE reward_distributions (
      month text PRIMARY KEY CHECK (month ~ ${sql.raw(MONTH)}),
      merkle_root text,
      pool_amount numeric(78, 0) NOT NULL,
      total_distributed numeric(78, 0) NOT NULL,
      recipients integer NOT NULL,
      allocation jsonb NOT NULL,
      totals jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);

  await sql`
    CREATE TABLE reward_drops (
      month text NOT NULL REFERENCES reward_distributions (month) ON DELETE CASCADE,
      address text NOT NULL,
      user_id integer REFERENCES users (id) ON DELETE SET NULL,
      amount numeric(78, 0) NOT NULL CHECK (amount > 0),
      top_posters numeric(78, 0) NOT NULL DEFAULT 0,
      top_yappers numeric(78, 0) NOT NULL DEFAULT 0,
      top_voters numeric(78, 0) NOT NULL DEFAULT 0,
      top_editors numeric(78, 0) NOT NULL DEFAULT 0,
      proof text[] NOT NULL,
      PRIMARY KEY (month, address)
    )`.execute(db);
  await sql`CREATE INDEX reward_drops_user_idx ON reward_drops (user_id, month DESC)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE reward_drops, reward_distributions, reward_allocations, leaderboard_entries, leaderboard_snapshots`.execute(db);
  await sql`DROP INDEX IF EXISTS votes_created_idx, yaps_created_idx`.execute(db);
}
