// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Signed outbound webhooks.
 *
 * webhook_endpoints: one receiver URL, owned either by an account (user_id) or by an API key not
 * linked to an account (api_key_id). event_types and the three filter lists (NULL = that kind does
 * not filter) decide which public events it gets. The signing secret is stored only encrypted
 * (secret_enc; the previous one, during a rotation, until previous_secret_expires_at).
 * failing_since: when the current run of failed attempts began (NULL while it delivers); an
 * endpoint failing longer than the retry horizon, or answering 410, is disabled with a reason.
 *
 * webhook_endpoint_state.version: bumped (statement trigger) by every change that affects which
 * events go where: endpoints inserted, deleted, enabled or disabled, their types or filters changed,
 * an API key revoked. The relay keeps an in-memory index of the endpoints and reloads it when the
 * version moved (one tiny read per relay pass instead of a scan of every endpoint per event).
 *
 * webhook_deliveries: one row per (endpoint, event), inserted by the relay in its transaction
 * (unique, so a re-relayed event is not delivered twice); event_id NULL for webhook.test deliveries,
 * whose body is in `payload`. The id is the message id (`webhook-id: msg_<id>`), the same on every
 * attempt. state: pending (due at next_attempt_at), succeeded, failed (410, or retries exhausted),
 * cancelled (endpoint disabled). An attempt is written once, with its outcome (runs of one endpoint
 * never overlap). Only a short excerpt of the last response body is kept.
 * Indexes are kept to three (the table takes a row per delivery and an update per attempt); retention
 * deletes in id order, which is creation order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE webhook_endpoints (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      user_id integer REFERENCES users (id) ON DELETE CASCADE,
      api_key_id text REFERENCES api_keys (id) ON DELETE CASCADE,
      url text NOT NULL,
      description text,
      event_types text[] NOT NULL,
      filter_tags text[],
      filter_token_addresses text[],
      filter_token_symbols text[],
      secret_enc text NOT NULL,
      previous_secret_enc text,
      previous_secret_expires_at timestamptz,
      secret_rotated_at timestamptz,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      disabled_at timestamptz,
      failing_since timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT webhook_endpoints_one_owner CHECK ((user_id IS NULL) <> (api_key_id IS NULL))
    )`.execute(db);
  await sql`CREATE INDEX webhook_endpoints_user_idx ON webhook_endpoints (user_id, id) WHERE user_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX webhook_endpoints_api_key_idx ON webhook_endpoints (api_key_id, id) WHERE api_key_id IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE webhook_endpoint_state (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      version bigint NOT NULL DEFAULT 0
    )`.execute(db);
  await sql`INSERT INTO webhook_endpoint_state (id) VALUES (true)`.execute(db);
  await sql`
    CREATE FUNCTION webhook_endpoints_bump() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE webhook_endpoint_state SET version = version + 1;
      RETURN NULL;
    END
    $fn$`.execute(db);
  await sql`
    CREATE TRIGGER webhook_endpoints_changed
    AFTER INSERT OR DELETE OR UPDATE OF enabled, event_types, filter_tags, filter_token_addresses, filter_token_symbols
    ON webhook_endpoints FOR EACH STATEMENT EXECUTE FUNCTION webhook_endpoints_bump()`.execute(db);
  await sql`CREATE TRIGGER webhook_api_key_revoked AFTER UPDATE OF revoked_at ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION webhook_endpoints_bump()`.execute(db);

  await sql`
    CREATE TABLE webhook_deliveries (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      endpoint_id integer NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id bigint,
      event_type text NOT NULL,
      payload json,
      state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      last_status integer,
      last_error text,
      last_latency_ms integer,
      last_response_excerpt text,
      created_at timestamptz NOT NULL DEFAULT now(),
      completed_at timestamptz,
      CONSTRAINT webhook_deliveries_endpoint_event_key UNIQUE (endpoint_id, event_id)
    )`.execute(db);
  // Due deliveries of one endpoint (its deliver job's claim, the sweep's probe per endpoint).
  await sql`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE state = 'pending'`.execute(db);
  // An endpoint's deliveries, newest first (the API's list, the CLI).
  await sql`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, id)`.execute(db);

  // What a delivery run reads before each round of attempts: the endpoint as it is now and its due
  // deliveries with their bodies. A function so that its plans are cached per connection (planning
  // the equivalent statement cost several times its execution, once per delivery).
  await sql`
    CREATE FUNCTION webhook_due(p_endpoint integer, p_limit integer, p_exclude bigint[]) RETURNS json
    LANGUAGE plpgsql STABLE AS $fn$
    DECLARE
      t json;
      d json;
    BEGIN
      SELECT row_to_json(x) INTO t FROM (
        SELECT e.id, e.url, e.secret_enc,
               CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_enc END AS previous_secret_enc,
               e.failing_since, (e.enabled AND k.revoked_at IS NULL) AS active
        FROM webhook_endpoints e LEFT JOIN api_keys k ON k.id = e.api_key_id
        WHERE e.id = p_endpoint) x;
      IF t IS NULL OR NOT (t->>'active')::boolean THEN
        RETURN json_build_object('target', t, 'due', '[]'::json);
      END IF;
      SELECT coalesce(json_agg(y ORDER BY y.id), '[]'::json) INTO d FROM (
        SELECT c.id, c.event_id, c.event_type, c.attempts,
               coalesce(l.payload::text, c.payload::text) AS data, coalesce(l.recorded_at, c.created_at) AS occurred_at
        FROM (
          SELECT w.id, w.event_id, w.event_type, w.attempts, w.payload, w.created_at FROM webhook_deliveries w
          WHERE w.endpoint_id = p_endpoint AND w.state = 'pending' AND w.next_attempt_at <= now() AND w.id <> ALL(p_exclude)
          ORDER BY w.next_attempt_at, w.id
          LIMIT p_limit
        ) c LEFT JOIN event_log l ON l.event_id = c.event_id) y;
      RETURN json_build_object('target', t, 'due', d);
    END
    $fn$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS webhook_due(integer, integer, bigint[])`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_deliveries`.execute(db);
  await sql`DROP TRIGGER IF EXISTS webhook_api_key_revoked ON api_keys`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_endpoints`.execute(db);
  await sql`DROP FUNCTION IF EXISTS webhook_endpoints_bump()`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_endpoint_state`.execute(db);
}
