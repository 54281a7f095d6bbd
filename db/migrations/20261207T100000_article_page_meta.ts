// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * What the page-title job reads from a submission's page besides its title: the page's description
 * (og:description, twitter:description or the description meta) and the publication time it claims
 * (article:published_time, datePublished). The story assigner uses them as the article's page text
 * and claimed time (src/stories/assign-queries.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE articles ADD COLUMN page_description text, ADD COLUMN page_published_at timestamptz`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE articles DROP COLUMN IF EXISTS page_description, DROP COLUMN IF EXISTS page_published_at`.execute(db);
}
