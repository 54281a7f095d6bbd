// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * event_log_record1() / event_log_record(): one call writes an event's log row and its outbox row.
 *
 * Inside PL/pgSQL the plan of the outbox INSERT is kept per connection; written by the caller (a
 * data-modifying common table expression of the article's INSERT over what event_log_write1()
 * returns), PostgreSQL would plan it at every call. The submission path inserts its article
 * `... SELECT ... FROM event_log_record1(...)`.
 *
 * The functions return the ids drawn (one bigint; the count for the several-event form).
 * event_log_write1() and event_log_write() stay unchanged for the release before this one, whose
 * processes keep running until the new ones replace them; a later migration drops them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION event_log_record1(ev_type text, ev_article_id int, ev_visibility text, ev_payload text, given_attrs json)
    RETURNS bigint LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      id bigint := event_log_draw();
    BEGIN
      INSERT INTO event_log (event_id, type, article_id, visibility, payload, attrs)
      VALUES (id, ev_type, ev_article_id, ev_visibility,
              (left(ev_payload, -1) || CASE WHEN ev_payload = '{}' THEN '' ELSE ',' END || '"event_id":' || id || '}')::json,
              CASE WHEN ev_visibility = 'internal' OR ev_article_id IS NULL THEN NULL
                   WHEN given_attrs IS NOT NULL THEN given_attrs
                   ELSE (SELECT json_build_object('tags', a.tags, 'token_addresses', a.token_addresses, 'token_symbols', a.token_symbols)
                         FROM articles a WHERE a.id = ev_article_id) END);
      INSERT INTO event_outbox (event_id, article_id) VALUES (id, ev_article_id);
      RETURN id;
    END
    $fn$`.execute(db);
  // Several events: one event_log_record1() each, in the order given (ids follow that order).
  await sql`
    CREATE FUNCTION event_log_record(types text[], article_ids int[], visibilities text[], payloads text[], given_attrs json)
    RETURNS int LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      n int := coalesce(array_length(types, 1), 0);
    BEGIN
      FOR i IN 1 .. n LOOP
        PERFORM event_log_record1(types[i], article_ids[i], visibilities[i], payloads[i], given_attrs);
      END LOOP;
      RETURN n;
    END
    $fn$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS event_log_record(text[], int[], text[], text[], json)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_record1(text, int, text, text, json)`.execute(db);
}
