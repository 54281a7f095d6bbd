// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Assets on article events and webhook asset filters.
 *
 *  - event_log_record1() adds the article's visible asset tags (article_assets, not removed) to an
 *    article event that clients see: `assets` [{id, symbol, name, salience, primary}] by salience in
 *    the payload, and their ids as attrs.assets (what stream, webhook and GET /events/ asset filters
 *    match). Both only when the article has tags, so events of untagged articles are as before.
 *    Same signature, so processes of the release being replaced call it unchanged during a deploy.
 *  - webhook_endpoints.filter_assets: an endpoint's asset filter (canonical ids, any of); a change
 *    bumps the endpoints' version like the other filter columns.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION event_log_record1(ev_type text, ev_article_id int, ev_visibility text, ev_payload text, given_attrs json)
    RETURNS bigint LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      id bigint := event_log_draw();
      ev_attrs json := given_attrs;
      ev_assets json;
      ev_asset_ids text[];
      body text := ev_payload;
    BEGIN
      IF ev_visibility = 'internal' OR ev_article_id IS NULL THEN
        ev_attrs := NULL;
      ELSE
        IF ev_attrs IS NULL THEN
          SELECT json_build_object('tags', a.tags, 'token_addresses', a.token_addresses, 'token_symbols', a.token_symbols)
            INTO ev_attrs FROM articles a WHERE a.id = ev_article_id;
        END IF;
        SELECT json_agg(json_build_object('id', s.id, 'symbol', s.symbol, 'name', s.name, 'salience', round(t.salience::numeric, 2), 'primary', t.is_primary)
                        ORDER BY t.salience DESC, s.id),
               array_agg(s.id ORDER BY t.salience DESC, s.id)
          INTO ev_assets, ev_asset_ids
          FROM article_assets t JOIN assets s ON s.id = t.asset_id
          WHERE t.article_id = ev_article_id AND NOT t.removed;
        IF ev_assets IS NOT NULL AND ev_attrs IS NOT NULL THEN
          ev_attrs := (ev_attrs::jsonb || jsonb_build_object('assets', ev_asset_ids))::json;
          body := left(body, -1) || CASE WHEN body = '{}' THEN '' ELSE ',' END || '"assets":' || ev_assets::text || '}';
        END IF;
      END IF;
      INSERT INTO event_log (event_id, type, article_id, visibility, payload, attrs)
      VALUES (id, ev_type, ev_article_id, ev_visibility,
              (left(body, -1) || CASE WHEN body = '{}' THEN '' ELSE ',' END || '"event_id":' || id || '}')::json,
              ev_attrs);
      INSERT INTO event_outbox (event_id, article_id) VALUES (id, ev_article_id);
      RETURN id;
    END
    $fn$`.execute(db);
  await sql`ALTER TABLE webhook_endpoints ADD COLUMN filter_assets text[]`.execute(db);
  await sql`DROP TRIGGER webhook_endpoints_changed ON webhook_endpoints`.execute(db);
  await sql`
    CREATE TRIGGER webhook_endpoints_changed
    AFTER INSERT OR DELETE OR UPDATE OF enabled, event_types, filter_tags, filter_token_addresses, filter_token_symbols, filter_assets
    ON webhook_endpoints FOR EACH STATEMENT EXECUTE FUNCTION webhook_endpoints_bump()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER webhook_endpoints_changed ON webhook_endpoints`.execute(db);
  await sql`
    CREATE TRIGGER webhook_endpoints_changed
    AFTER INSERT OR DELETE OR UPDATE OF enabled, event_types, filter_tags, filter_token_addresses, filter_token_symbols
    ON webhook_endpoints FOR EACH STATEMENT EXECUTE FUNCTION webhook_endpoints_bump()`.execute(db);
  await sql`ALTER TABLE webhook_endpoints DROP COLUMN filter_assets`.execute(db);
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
