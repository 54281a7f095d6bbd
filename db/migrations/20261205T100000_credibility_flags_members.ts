// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * credibility_flags by member: the per-vote credibility update reads the flags that name its voter
 * (`members @> ARRAY[user]`) for every vote; without this index that read scans every flag of the
 * month.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX credibility_flags_members_idx ON credibility_flags USING gin (members)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS credibility_flags_members_idx`.execute(db);
}
