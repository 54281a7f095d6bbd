// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Wire promotion by corroboration (docs/stories.md "Wire promotion by corroboration"): the claim
 * that a story has had its one automatic queue item. promoted_at is set by a conditional UPDATE
 * (`WHERE promoted_at IS NULL`) in the transaction that creates the queue item, so a story is
 * promoted automatically at most once; promoted_article_id is that article (null when the claim
 * found the story already covered, or the article was deleted).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE stories
      ADD COLUMN promoted_at timestamptz,
      ADD COLUMN promoted_article_id integer REFERENCES articles(id) ON DELETE SET NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE stories DROP COLUMN IF EXISTS promoted_article_id, DROP COLUMN IF EXISTS promoted_at`.execute(db);
}
