// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Hot scores live in a narrow side table, article_hot_scores, not in the wide `articles` table, so
 * that a full recompute stays fast: rewriting a score on articles would rewrite the whole wide row
 * and write an entry into each of its indexes. Here a rewrite is a row of ~110 bytes with two index
 * entries (the primary key and the feed's (status, hot_score DESC, article_id DESC)).
 *
 * The terms of the score are plain columns: a jsonb of eight numbers per row would make the
 * recompute slower and the rows much wider. The
 * API's hot_terms object is built from them when a full record is read. They are NULL until the
 * first recompute, like hot_computed_at.
 *
 * `status` is a copy of articles.status, kept by triggers on articles (every write path: API,
 * editors, wire promotion, sponsored posts, seeds, tests), so the hot feed (`status = 'approved'
 * ORDER BY hot_score DESC, id DESC LIMIT 20`) is an index scan here joined to articles by primary
 * key. Every article has exactly one row.
 *
 * fillfactor 50: a rewritten row usually finds room on its own page, so a full recompute dirties
 * each page once instead of appending to the end of the table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE article_hot_scores (
      article_id integer PRIMARY KEY REFERENCES articles (id) ON DELETE CASCADE,
      status text NOT NULL,
      hot_score double precision NOT NULL DEFAULT 0,
      votes integer,
      yap_quality double precision,
      click_term double precision,
      engagement double precision,
      points double precision,
      age_hours double precision,
      decay double precision,
      hot_computed_at timestamptz
    ) WITH (fillfactor = 50)`.execute(db);

  await sql`
    CREATE FUNCTION article_hot_scores_sync() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO article_hot_scores (article_id, status) VALUES (NEW.id, NEW.status)
      ON CONFLICT (article_id) DO UPDATE SET status = EXCLUDED.status;
      RETURN NULL;
    END
    $fn$`.execute(db);
  await sql`
    CREATE TRIGGER articles_hot_scores_insert AFTER INSERT ON articles
    FOR EACH ROW EXECUTE FUNCTION article_hot_scores_sync()`.execute(db);
  await sql`
    CREATE TRIGGER articles_hot_scores_update AFTER UPDATE OF status ON articles
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
    EXECUTE FUNCTION article_hot_scores_sync()`.execute(db);

  await sql`
    INSERT INTO article_hot_scores (article_id, status, hot_score, votes, yap_quality, click_term, engagement, points, age_hours, decay, hot_computed_at)
    SELECT id, status, hot_score, (hot_terms->>'votes')::int, (hot_terms->>'yap_quality')::float8, (hot_terms->>'click_term')::float8,
           (hot_terms->>'engagement')::float8, (hot_terms->>'points')::float8, (hot_terms->>'age_hours')::float8,
           (hot_terms->>'decay')::float8, hot_computed_at
    FROM articles`.execute(db);
  await sql`CREATE INDEX article_hot_scores_status_hot_idx ON article_hot_scores (status, hot_score DESC, article_id DESC)`.execute(db);

  await sql`DROP INDEX articles_status_hot_idx`.execute(db);
  await sql`ALTER TABLE articles DROP COLUMN hot_score, DROP COLUMN hot_terms, DROP COLUMN hot_computed_at`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE articles
      ADD COLUMN hot_score double precision NOT NULL DEFAULT 0,
      ADD COLUMN hot_terms jsonb,
      ADD COLUMN hot_computed_at timestamptz`.execute(db);
  await sql`
    UPDATE articles a SET
      hot_score = h.hot_score,
      hot_terms = CASE WHEN h.hot_computed_at IS NOT NULL THEN jsonb_build_object(
        'votes', h.votes, 'yap_quality', h.yap_quality, 'click_term', h.click_term, 'engagement', h.engagement,
        'points', h.points, 'age_hours', round(h.age_hours::numeric, 3), 'decay', h.decay, 'score', h.hot_score) END,
      hot_computed_at = h.hot_computed_at
    FROM article_hot_scores h WHERE h.article_id = a.id`.execute(db);
  await sql`CREATE INDEX articles_status_hot_idx ON articles (status, hot_score DESC, id DESC)`.execute(db);
  await sql`DROP TRIGGER IF EXISTS articles_hot_scores_update ON articles`.execute(db);
  await sql`DROP TRIGGER IF EXISTS articles_hot_scores_insert ON articles`.execute(db);
  await sql`DROP FUNCTION IF EXISTS article_hot_scores_sync()`.execute(db);
  await sql`DROP TABLE IF EXISTS article_hot_scores`.execute(db);
}
