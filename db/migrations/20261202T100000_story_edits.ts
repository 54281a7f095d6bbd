// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Editors' merges and splits of stories (src/stories/editing-service.ts, docs/stories.md "Editors").
 *  - story_edits: one row per merge or split, the moderation log's story entries. story_id is the
 *    story kept (the merge target, the split's origin), other_story_id the story merged away or the
 *    new story of a split; ids are history (no foreign key: a merged-away story is deleted).
 *    items: the members moved, [{kind, id}]. headline / other_headline: the two stories'
 *    representative headlines after the edit (the merged-away one's as it was).
 *  - story_separations: two stories an editor split apart, both ways; merging them again needs
 *    `force`. A merge moves the merged-away story's separations to the story kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE story_edits (
      id serial PRIMARY KEY,
      action text NOT NULL CHECK (action IN ('merge', 'split')),
      story_id integer NOT NULL,
      other_story_id integer NOT NULL,
      headline text NOT NULL,
      other_headline text NOT NULL,
      items jsonb NOT NULL,
      note text,
      forced boolean NOT NULL DEFAULT false,
      editor_id integer REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX story_edits_created_idx ON story_edits (created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX story_edits_editor_idx ON story_edits (editor_id, created_at DESC)`.execute(db);
  await sql`
    CREATE TABLE story_separations (
      story_id integer NOT NULL REFERENCES stories(id) ON DELETE CASCADE,
      other_story_id integer NOT NULL REFERENCES stories(id) ON DELETE CASCADE,
      PRIMARY KEY (story_id, other_story_id),
      CHECK (story_id <> other_story_id)
    )`.execute(db);
  await sql`CREATE INDEX story_separations_other_idx ON story_separations (other_story_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS story_separations`.execute(db);
  await sql`DROP TABLE IF EXISTS story_edits`.execute(db);
}
