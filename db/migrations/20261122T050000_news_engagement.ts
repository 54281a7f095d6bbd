// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Votes on yaps: one per user per yap; yaps.vote_score is the sum of weights, kept exact by the
  // writer under a row lock on the yap.
  await sql`
    CREATE TABLE yap_votes (
      yap_id integer NOT NULL REFERENCES yaps (id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      weight smallint NOT NULL CHECK (weight IN (-1, 1)),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (yap_id, user_id)
    )`.execute(db);
  await sql`CREATE INDEX yap_votes_user_idx ON yap_votes (user_id, created_at)`.execute(db);

  // top_tldr of every feed item: the best-scored yap tagged tldr, one index probe per article.
  await sql`CREATE INDEX yaps_article_tldr_idx ON yaps (article_id, score DESC, id) WHERE 'tldr' = ANY (tags)`.execute(db);
  // list_yaps sort=new / sort=old.
  await sql`CREATE INDEX yaps_article_created_idx ON yaps (article_id, created_at DESC, id DESC)`.execute(db);
  // Feed status=all (editors and signed-in users), sorted new.
  await sql`CREATE INDEX articles_created_idx ON articles (created_at DESC, id DESC)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS articles_created_idx, yaps_article_created_idx, yaps_article_tldr_idx`.execute(db);
  await sql`DROP TABLE yap_votes`.execute(db);
}
