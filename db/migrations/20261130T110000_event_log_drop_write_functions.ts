// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Drops event_log_write1() and event_log_write(), replaced by event_log_record1() /
 * event_log_record() in migration 20261129T100000 and kept since for the release before that one.
 * Neither this release nor the previous one (which already recorded through event_log_record*)
 * calls them, so a deploy of this release leaves no running process that needs them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS event_log_write(text[], int[], text[], text[], json)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_write1(text, int, text, text, json)`.execute(db);
}

/** Restores them as they were last defined (migration 20261128T090000). */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION event_log_write1(ev_type text, ev_article_id int, ev_visibility text, ev_payload text, given_attrs json)
    RETURNS TABLE (event_id bigint, article_id int) LANGUAGE plpgsql VOLATILE AS $fn$
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
      event_id := id;
      article_id := ev_article_id;
      RETURN NEXT;
    END
    $fn$`.execute(db);
  await sql`
    CREATE FUNCTION event_log_write(types text[], article_ids int[], visibilities text[], payloads text[], given_attrs json)
    RETURNS TABLE (event_id bigint, article_id int) LANGUAGE plpgsql VOLATILE AS $fn$
    BEGIN
      FOR i IN 1 .. coalesce(array_length(types, 1), 0) LOOP
        RETURN QUERY SELECT w.event_id, w.article_id FROM event_log_write1(types[i], article_ids[i], visibilities[i], payloads[i], given_attrs) w;
      END LOOP;
    END
    $fn$`.execute(db);
}
