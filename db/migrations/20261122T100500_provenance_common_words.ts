// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Common words of the provenance headline index: the candidate-key words (4-character prefixes of
 * normalised words) that occur in at least 1% of the window's indexed headlines (and in at least
 * 50), refreshed hourly by the provenance-headlines-maintain job. The text check uses them to find
 * the query's distinctive words; see headlineCandidates in src/provenance/queries.ts. (That job
 * also prunes provenance_headlines; migration 20261122T100000 calls it provenance-headlines-prune,
 * its first name.)
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE provenance_common_words (
      word text PRIMARY KEY,
      articles integer NOT NULL,
      refreshed_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS provenance_common_words`.execute(db);
}
