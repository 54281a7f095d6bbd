// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Kill and retract reasons and the public moderation log.
 *  - articles.decision_reason / decision_note / duplicate_of: why the article is killed or retracted
 *    (set by kill and retract, cleared when a kill is reversed by approve or schedule). Existing
 *    killed and retracted articles get 'unspecified' (they were decided without a reason).
 *  - article_edits.action / reason / note / duplicate_of / status_at: each row of the edit history is
 *    one editorial action (approve, kill, schedule, retract, edit) with the article's status when it
 *    happened; GET /api/v1/modlog/ reads them. Existing rows are classified from their changes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE articles
      ADD COLUMN decision_reason text,
      ADD COLUMN decision_note text,
      ADD COLUMN duplicate_of integer REFERENCES articles(id) ON DELETE SET NULL,
      ADD CONSTRAINT articles_decision_reason_check CHECK (decision_reason IN ('duplicate', 'off_topic', 'low_quality', 'spam', 'misleading', 'other', 'unspecified')),
      ADD CONSTRAINT articles_decision_note_length CHECK (char_length(decision_note) <= 1000)`.execute(db);
  await sql`UPDATE articles SET decision_reason = 'unspecified' WHERE status IN ('killed', 'retracted')`.execute(db);

  await sql`
    ALTER TABLE article_edits
      ADD COLUMN action text,
      ADD COLUMN reason text,
      ADD COLUMN note text,
      ADD COLUMN duplicate_of integer REFERENCES articles(id) ON DELETE SET NULL,
      ADD COLUMN status_at text`.execute(db);
  // Rows written without an action (older code paths, seeds) are classified from their changes,
  // at insert by a trigger and here for the rows that exist.
  await sql`
    CREATE FUNCTION article_edits_classify() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF NEW.action IS NULL THEN
        NEW.action := CASE NEW.changes->'status'->>'to'
          WHEN 'approved' THEN 'approve' WHEN 'killed' THEN 'kill' WHEN 'scheduled' THEN 'schedule' WHEN 'retracted' THEN 'retract'
          ELSE CASE WHEN NEW.changes ? 'scheduled_for' THEN 'schedule' ELSE 'edit' END END;
        NEW.status_at := COALESCE(NEW.status_at, NEW.changes->'status'->>'from');
        IF NEW.action IN ('kill', 'retract') THEN NEW.reason := COALESCE(NEW.reason, 'unspecified'); END IF;
      END IF;
      RETURN NEW;
    END
    $fn$`.execute(db);
  await sql`CREATE TRIGGER article_edits_classify BEFORE INSERT OR UPDATE ON article_edits FOR EACH ROW EXECUTE FUNCTION article_edits_classify()`.execute(db);
  await sql`UPDATE article_edits SET action = NULL`.execute(db);
  await sql`ALTER TABLE article_edits ADD CONSTRAINT article_edits_action_check CHECK (action IS NOT NULL AND action IN ('approve', 'kill', 'schedule', 'retract', 'edit'))`.execute(
    db,
  );
  // The public log: every transition, and edits made while the article was published.
  await sql`CREATE INDEX article_edits_modlog_idx ON article_edits (created_at DESC, id DESC) WHERE action <> 'edit' OR status_at = 'approved'`.execute(db);
  await sql`CREATE INDEX article_edits_editor_idx ON article_edits (editor_id, created_at DESC, id DESC)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS article_edits_editor_idx`.execute(db);
  await sql`DROP INDEX IF EXISTS article_edits_modlog_idx`.execute(db);
  await sql`DROP TRIGGER IF EXISTS article_edits_classify ON article_edits`.execute(db);
  await sql`DROP FUNCTION IF EXISTS article_edits_classify()`.execute(db);
  await sql`ALTER TABLE article_edits DROP COLUMN action, DROP COLUMN reason, DROP COLUMN note, DROP COLUMN duplicate_of, DROP COLUMN status_at`.execute(db);
  await sql`ALTER TABLE articles DROP COLUMN decision_reason, DROP COLUMN decision_note, DROP COLUMN duplicate_of`.execute(db);
}
