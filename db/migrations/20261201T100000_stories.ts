// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Stories: every article and wire item grouped into the real-world event it reports
 * (src/stories/, docs/stories.md).
 *  - stories: one row per story: a representative headline (its first member's), first and last
 *    seen times, member and distinct-source counts, and `locked` (an editor merged or split it).
 *  - story_members: one row per assigned article or wire item (kind, item_id), with what the
 *    assigner compares (features: words, figures, URL and slug keys, source key, time) and whether
 *    it is a copy of another member (then it does not count as an independent source).
 *  - story_keys: the inverted index of the assigner's candidate lookup: word or copy key -> story,
 *    with the story's last seen time (so lookups read only recent stories).
 *  - story_word_counts: document frequencies of words over all assigned items (the word weights);
 *    the row with word '' counts the items.
 *  - articles.story_id, wire_items.story_id: the item's story (null until assigned).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE stories (
      id serial PRIMARY KEY,
      headline text NOT NULL,
      first_seen_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL,
      member_count integer NOT NULL DEFAULT 0,
      source_count integer NOT NULL DEFAULT 0,
      locked boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX stories_last_seen_idx ON stories (last_seen_at DESC, id DESC)`.execute(db);
  await sql`
    CREATE TABLE story_members (
      item_kind text NOT NULL CHECK (item_kind IN ('article', 'wire')),
      item_id integer NOT NULL,
      story_id integer NOT NULL REFERENCES stories(id) ON DELETE CASCADE,
      headline text NOT NULL,
      url text,
      source text NOT NULL,
      seen_at timestamptz NOT NULL,
      copy_of_member boolean NOT NULL DEFAULT false,
      features jsonb NOT NULL,
      assigned_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (item_kind, item_id)
    )`.execute(db);
  await sql`CREATE INDEX story_members_story_idx ON story_members (story_id, seen_at, item_kind, item_id)`.execute(db);
  await sql`
    CREATE TABLE story_keys (
      key text NOT NULL,
      story_id integer NOT NULL REFERENCES stories(id) ON DELETE CASCADE,
      last_seen_at timestamptz NOT NULL,
      PRIMARY KEY (key, story_id)
    )`.execute(db);
  await sql`CREATE INDEX story_keys_recent_idx ON story_keys (key, last_seen_at DESC)`.execute(db);
  await sql`CREATE INDEX story_keys_story_idx ON story_keys (story_id)`.execute(db);
  await sql`CREATE TABLE story_word_counts (word text PRIMARY KEY, items integer NOT NULL DEFAULT 0)`.execute(db);
  await sql`ALTER TABLE articles ADD COLUMN story_id integer REFERENCES stories(id) ON DELETE SET NULL`.execute(db);
  await sql`ALTER TABLE wire_items ADD COLUMN story_id integer REFERENCES stories(id) ON DELETE SET NULL`.execute(db);
  await sql`CREATE INDEX articles_story_idx ON articles (story_id) WHERE story_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX wire_items_story_idx ON wire_items (story_id) WHERE story_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS wire_items_story_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS articles_story_idx`.execute(db);
  await sql`ALTER TABLE wire_items DROP COLUMN IF EXISTS story_id`.execute(db);
  await sql`ALTER TABLE articles DROP COLUMN IF EXISTS story_id`.execute(db);
  await sql`DROP TABLE IF EXISTS story_word_counts`.execute(db);
  await sql`DROP TABLE IF EXISTS story_keys`.execute(db);
  await sql`DROP TABLE IF EXISTS story_members`.execute(db);
  await sql`DROP TABLE IF EXISTS stories`.execute(db);
}
