// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Token filters match tagged articles: a BEFORE INSERT trigger on event_log adds, to the attrs of
 * an event that carries asset tags (attrs.assets, set by event_log_record1()), the symbols of those
 * assets (upper-case) to token_symbols and their contract addresses (asset_deployments, lower-case,
 * as token filters compare them) to token_addresses, beside the article's own fields. Stream,
 * webhook and GET /api/v1/events/ token filters match on attrs, so they then match an article
 * tagged with the asset as well as one whose fields name it. The payload is unchanged (its token
 * fields stay the article's). Events without asset tags are left as they are.
 *
 * asset_deployments_address_idx: the deployments by contract address (the CAIP-19 id's last part,
 * lower-case), which the feed's token_address filter looks up to match tagged articles.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION event_log_asset_tokens() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      ids text[];
    BEGIN
      IF NEW.attrs IS NULL OR json_typeof(NEW.attrs -> 'assets') IS DISTINCT FROM 'array' THEN
        RETURN NEW;
      END IF;
      ids := ARRAY(SELECT json_array_elements_text(NEW.attrs -> 'assets'));
      NEW.attrs := (NEW.attrs::jsonb || jsonb_build_object(
        'token_symbols', ARRAY(
          SELECT json_array_elements_text(coalesce(NEW.attrs -> 'token_symbols', '[]'::json))
          UNION SELECT upper(s.symbol) FROM assets s WHERE s.id = ANY(ids)),
        'token_addresses', ARRAY(
          SELECT json_array_elements_text(coalesce(NEW.attrs -> 'token_addresses', '[]'::json))
          UNION SELECT lower(substring(d.caip19 from '/(?:erc20|token):([^/]+)$')) FROM asset_deployments d
                WHERE d.asset_id = ANY(ids) AND d.caip19 ~ '/(erc20|token):[^/]+$')
      ))::json;
      RETURN NEW;
    END
    $fn$`.execute(db);
  await sql`CREATE TRIGGER event_log_asset_tokens BEFORE INSERT ON event_log FOR EACH ROW EXECUTE FUNCTION event_log_asset_tokens()`.execute(db);
  await sql`CREATE INDEX asset_deployments_address_idx ON asset_deployments (lower(substring(caip19 from '/(?:erc20|token):([^/]+)$')))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX asset_deployments_address_idx`.execute(db);
  await sql`DROP TRIGGER event_log_asset_tokens ON event_log`.execute(db);
  await sql`DROP FUNCTION event_log_asset_tokens()`.execute(db);
}
