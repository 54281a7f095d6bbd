// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * The commit trigger reads each event's article by its key, never by scanning the table.
 *
 * event_log_commit() reads the article's tags and tokens (the event's attrs). Written as a LEFT JOIN
 * of the staged events to articles, PL/pgSQL plans that statement once per connection and keeps the
 * plan until the table's statistics change, and a plan made while articles was small (a fresh
 * database, or before autovacuum's next ANALYZE) is a hash join over a sequential scan of the whole
 * table, run inside the event-order lock, so every event-writing commit would wait for it and the
 * wait would grow with the table. A scalar subquery by primary key cannot be turned into a
 * scan of the table: each event costs one index probe whatever the statistics say.
 */
export async function up(db: Kysely<any>): Promise<void> {
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
               CASE WHEN o.visibility <> 'internal' AND o.article_id IS NOT NULL THEN (
                 SELECT json_build_object('tags', a.tags, 'token_addresses', a.token_addresses, 'token_symbols', a.token_symbols)
                 FROM articles a WHERE a.id = o.article_id
               ) END
        FROM ordered o
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
  await sql`
    CREATE OR REPLACE FUNCTION event_log_commit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      n bigint;
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
      GET DIAGNOSTICS n = ROW_COUNT;
      IF n > 0 THEN
        PERFORM pg_notify('event_outbox', '');
      END IF;
      RETURN NULL;
    END
    $fn$`.execute(db);
}
