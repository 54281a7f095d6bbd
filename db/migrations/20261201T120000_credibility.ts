// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Credibility of reward activity (src/credibility/, docs/credibility.md).
 *
 * - credibility_weights: the weight (0..1) of one vote, yap or submission below full credit, with
 *   the reasons a person can read. Absent row = full weight 1. kind: article_vote | yap_vote | yap |
 *   submission; target_id: the article or yap id; user_id: the actor (voter, yap author, submitter).
 * - credibility_flags: accounts and groups the detector flagged for a month, with their evidence.
 * - credibility_overrides: a staff decision on a flag (confirmed or cleared); the jobs keep it.
 * - credibility_runs: full recomputes of a month; finished_at is set when its weights are in place;
 *   `cursor` is the last user id whose weights were staged (resume point); lease_until guards
 *   concurrent runners.
 * - credibility_staged: a run's weights before they replace the month's.
 * - article_readers: who opened an article through its click-through (first time only).
 * - sign_in_fingerprints: hashed (never raw) IP address and user agent of a sign-in.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE credibility_weights (
      month text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('article_vote', 'yap_vote', 'yap', 'submission')),
      target_id integer NOT NULL,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      weight real NOT NULL CHECK (weight >= 0 AND weight < 1),
      reasons text[] NOT NULL,
      PRIMARY KEY (kind, target_id, user_id)
    )`.execute(db);
  await sql`CREATE INDEX credibility_weights_month_user_idx ON credibility_weights (month, user_id)`.execute(db);
  await sql`
    CREATE TABLE credibility_staged (
      run_id integer NOT NULL,
      kind text NOT NULL,
      target_id integer NOT NULL,
      user_id integer NOT NULL,
      weight real NOT NULL,
      reasons text[] NOT NULL,
      PRIMARY KEY (run_id, kind, target_id, user_id)
    )`.execute(db);
  await sql`
    CREATE TABLE credibility_flags (
      id serial PRIMARY KEY,
      month text NOT NULL,
      kind text NOT NULL,
      members integer[] NOT NULL,
      evidence jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (month, kind, members)
    )`.execute(db);
  await sql`
    CREATE TABLE credibility_overrides (
      month text NOT NULL,
      kind text NOT NULL,
      members integer[] NOT NULL,
      decision text NOT NULL CHECK (decision IN ('confirmed', 'cleared')),
      note text,
      decided_by integer REFERENCES users(id) ON DELETE SET NULL,
      decided_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (month, kind, members)
    )`.execute(db);
  await sql`
    CREATE TABLE credibility_runs (
      id serial PRIMARY KEY,
      month text NOT NULL,
      as_of timestamptz NOT NULL,
      started_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      cursor integer NOT NULL DEFAULT 0,
      lease_until timestamptz,
      attempts integer NOT NULL DEFAULT 1,
      stats jsonb
    )`.execute(db);
  await sql`CREATE INDEX credibility_runs_month_idx ON credibility_runs (month, id DESC)`.execute(db);
  await sql`
    CREATE TABLE article_readers (
      article_id integer NOT NULL REFERENCES articles(id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      first_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (article_id, user_id)
    )`.execute(db);
  await sql`
    CREATE TABLE sign_in_fingerprints (
      user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      at timestamptz NOT NULL DEFAULT now(),
      ip_hash text NOT NULL,
      ua_hash text NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX sign_in_fingerprints_user_idx ON sign_in_fingerprints (user_id, at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['sign_in_fingerprints', 'article_readers', 'credibility_runs', 'credibility_overrides', 'credibility_flags', 'credibility_staged', 'credibility_weights']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(t)}`.execute(db);
  }
}
