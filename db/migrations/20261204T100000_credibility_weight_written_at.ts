// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * credibility_weights.written_at: when the row's weight was decided. The per-vote update writes now();
 * a full recompute's publication writes its run's as_of (the cut-off of the activity it read), and
 * deletes or rewrites only rows not newer than that cut-off, so a weight the per-vote update wrote
 * for a vote cast or changed after the cut-off survives the publication.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE credibility_weights ADD COLUMN written_at timestamptz NOT NULL DEFAULT now()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE credibility_weights DROP COLUMN IF EXISTS written_at`.execute(db);
}
