// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * event_log_record1() reads the article's attrs (tags and tokens) only when the caller gave none.
 *
 * The lookup is its own statement, run only when it is needed: as a subquery inside the INSERT's
 * CASE expression, PostgreSQL would initialise its plan (opening the articles table and its primary
 * key index) every time the INSERT runs, whether or not the CASE reaches it, and the submission path
 * always gives its attrs. Same signature and results, so processes of the release being replaced
 * call it unchanged during a deploy.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION event_log_record1(ev_type text, ev_article_id int, ev_visibility text, ev_payload text, given_attrs json)
    RETURNS bigint LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      id bigint := event_log_draw();
      ev_attrs json := given_attrs;
    BEGIN
      IF ev_visibility = 'internal' OR ev_article_id IS NULL THEN
        ev_attrs := NULL;
      ELSIF ev_attrs IS NULL THEN
        SELECT json_build_object('tags', a.tags, 'token_addresses', a.token_addresses, 'token_symbols', a.token_symbols)
          INTO ev_attrs FROM articles a WHERE a.id = ev_article_id;
      END IF;
      INSERT INTO event_log (event_id, type, article_id, visibility, payload, attrs)
      VALUES (id, ev_type, ev_article_id, ev_visibility,
              (left(ev_payload, -1) || CASE WHEN ev_payload = '{}' THEN '' ELSE ',' END || '"event_id":' || id || '}')::json,
              ev_attrs);
      INSERT INTO event_outbox (event_id, article_id) VALUES (id, ev_article_id);
      RETURN id;
    END
    $fn$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION event_log_record1(ev_type text, ev_article_id int, ev_visibility text, ev_payload text, given_attrs json)
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
}
