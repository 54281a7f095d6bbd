// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * A cheaper commit for event-writing transactions (what the outbox costs a submission is measured by
 * scripts/bench/events.ts).
 *
 *  - event_outbox's foreign key to event_log goes. Its check ran a locking lookup of the log row
 *    (SELECT ... FOR KEY SHARE, which also rewrites the row's lock bits) for every event at every
 *    commit, the largest single cost of recording an event. The invariant it guarded holds
 *    by construction: outbox rows are written only by event_log_commit(), from the log rows the same
 *    statement inserts, and retention (pruneEvents) never deletes an event still in the outbox.
 *  - event_log_article_idx goes: no query reads the log by article (the relay orders by event_id
 *    and orders per article through event_outbox_article_idx), and every event paid for it.
 *  - The relay's wake-up (pg_notify) moves from a statement trigger on event_outbox into
 *    event_log_commit() itself: one trigger invocation less per commit, and still sent only when
 *    the commit recorded events. Delivered only if and when the transaction commits.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE event_outbox DROP CONSTRAINT IF EXISTS event_outbox_event_id_fkey`.execute(db);
  await sql`DROP INDEX IF EXISTS event_log_article_idx`.execute(db);
  await sql`DROP TRIGGER IF EXISTS event_outbox_wake ON event_outbox`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION event_log_commit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      n bigint;
    BEGIN
      -- Held until the end of this commit: ids become visible in the order they are drawn.
      PERFORM pg_advisory_xact_lock(357846829380);
      WITH staged AS (
        DELETE FROM event_log_staged WHERE txid = pg_current_xact_id() RETURNING seq, type, article_id, visibility, payload
      ), ordered AS (
        SELECT nextval('event_log_event_id_seq') AS event_id, s.*
        FROM (SELECT * FROM staged ORDER BY seq) s
      ), logged AS (
        INSERT INTO event_log (event_id, type, article_id, visibility, payload, attrs)
        SELECT o.event_id, o.type, o.article_id, o.visibility,
               (left(o.payload, -1) || CASE WHEN o.payload = '{}' THEN '' ELSE ',' END || '"event_id":' || o.event_id || '}')::json,
               CASE WHEN o.visibility <> 'internal' AND a.id IS NOT NULL
                    THEN json_build_object('tags', a.tags, 'token_addresses', a.token_addresses, 'token_symbols', a.token_symbols) END
        FROM ordered o LEFT JOIN articles a ON a.id = o.article_id
        RETURNING event_id, article_id
      )
      INSERT INTO event_outbox (event_id, article_id) SELECT event_id, article_id FROM logged;
      GET DIAGNOSTICS n = ROW_COUNT;
      -- The first firing in a transaction does the work; later ones find nothing staged.
      IF n > 0 THEN
        PERFORM pg_notify('event_outbox', '');
      END IF;
      RETURN NULL;
    END
    $fn$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS event_log_article_idx ON event_log (article_id, event_id) WHERE article_id IS NOT NULL`.execute(db);
  await sql`ALTER TABLE event_outbox ADD CONSTRAINT event_outbox_event_id_fkey FOREIGN KEY (event_id) REFERENCES event_log (event_id)`.execute(db);
  await sql`CREATE TRIGGER event_outbox_wake AFTER INSERT ON event_outbox FOR EACH STATEMENT EXECUTE FUNCTION event_outbox_notify()`.execute(db);
  await sql`
    CREATE OR REPLACE FUNCTION event_log_commit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM pg_advisory_xact_lock(357846829380);
      WITH staged AS (
        DELETE FROM event_log_staged WHERE txid = pg_current_xact_id() RETURNING seq, type, article_id, visibility, payload
      ), ordered AS (
        SELECT nextval('event_log_event_id_seq') AS event_id, s.*
        FROM (SELECT * FROM staged ORDER BY seq) s
      ), logged AS (
        INSERT INTO event_log (event_id, type, article_id, visibility, payload, attrs)
        SELECT o.event_id, o.type, o.article_id, o.visibility,
               (left(o.payload, -1) || CASE WHEN o.payload = '{}' THEN '' ELSE ',' END || '"event_id":' || o.event_id || '}')::json,
               CASE WHEN o.visibility <> 'internal' AND a.id IS NOT NULL
                    THEN json_build_object('tags', a.tags, 'token_addresses', a.token_addresses, 'token_symbols', a.token_symbols) END
        FROM ordered o LEFT JOIN articles a ON a.id = o.article_id
        RETURNING event_id, article_id
      )
      INSERT INTO event_outbox (event_id, article_id) SELECT event_id, article_id FROM logged;
      RETURN NULL;
    END
    $fn$`.execute(db);
}
