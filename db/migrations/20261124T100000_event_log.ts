// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * The durable event log (transactional outbox).
 *
 * event_log: append-only. One row per lifecycle event, inserted in the same transaction as the
 * change it reports (src/platform/events/log.ts recordEvents, the only writer). `payload` is the event
 * object exactly as clients receive it, `event_id` included, stored as json (text, key order kept).
 * Rows are never updated (a trigger refuses it); the retention job deletes old ones.
 *
 * Event ids become visible in increasing order: recordEvents takes a transaction-scoped advisory
 * lock before it draws ids, so a transaction that drew a smaller id has committed (or rolled back)
 * before one with a larger id can draw its own. A poller reading `event_id > after` therefore never
 * skips an event that commits late. Ids may have gaps (rolled-back transactions).
 *
 * event_outbox: the events not yet relayed to Redis (one narrow row per event, deleted by the relay
 * when it has XADDed the event and done its side effects). Keeping relay state out of event_log keeps
 * the log append-only and the relay's `FOR UPDATE SKIP LOCKED` scan on a small, hot table.
 * A statement trigger NOTIFYs `event_outbox` on insert: PostgreSQL delivers it at commit, never
 * before, which is what wakes the relay (src/relay/waker.ts).
 *
 * event_log_state.pruned_through: the highest event_id the retention job has deleted, so that
 * GET /events/?after=<older id> can answer "expired" instead of silently skipping.
 *
 * articles.page_title_sweeps / page_title_failure: the page-title sweep's bookkeeping (how many times
 * it re-enqueued a lost or failed page-title job; the permanent reason a page has no usable title).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE event_log (
      event_id bigint PRIMARY KEY,
      type text NOT NULL,
      article_id integer,
      visibility text NOT NULL CHECK (visibility IN ('public', 'staff', 'internal')),
      payload json NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      txid xid8 NOT NULL DEFAULT pg_current_xact_id()
    )`.execute(db);
  await sql`CREATE SEQUENCE event_log_event_id_seq AS bigint OWNED BY event_log.event_id`.execute(db);
  // Retention deletes by age; ids and times rise together, so a BRIN index is enough and costs ~nothing per insert.
  await sql`CREATE INDEX event_log_recorded_at_brin ON event_log USING brin (recorded_at)`.execute(db);
  await sql`CREATE INDEX event_log_article_idx ON event_log (article_id, event_id) WHERE article_id IS NOT NULL`.execute(db);
  await sql`
    CREATE FUNCTION event_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      RAISE EXCEPTION 'event_log is append-only (event %)', OLD.event_id;
    END
    $fn$`.execute(db);
  await sql`CREATE TRIGGER event_log_no_update BEFORE UPDATE ON event_log FOR EACH ROW EXECUTE FUNCTION event_log_append_only()`.execute(db);

  await sql`
    CREATE TABLE event_outbox (
      event_id bigint PRIMARY KEY REFERENCES event_log (event_id),
      article_id integer
    )`.execute(db);
  await sql`CREATE INDEX event_outbox_article_idx ON event_outbox (article_id, event_id) WHERE article_id IS NOT NULL`.execute(db);
  await sql`
    CREATE FUNCTION event_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM pg_notify('event_outbox', '');
      RETURN NULL;
    END
    $fn$`.execute(db);
  await sql`CREATE TRIGGER event_outbox_wake AFTER INSERT ON event_outbox FOR EACH STATEMENT EXECUTE FUNCTION event_outbox_notify()`.execute(db);

  await sql`
    CREATE TABLE event_log_state (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      pruned_through bigint NOT NULL DEFAULT 0
    )`.execute(db);
  await sql`INSERT INTO event_log_state (id) VALUES (true)`.execute(db);

  await sql`ALTER TABLE articles ADD COLUMN page_title_sweeps smallint NOT NULL DEFAULT 0, ADD COLUMN page_title_failure text`.execute(db);
  await sql`CREATE INDEX articles_provisional_idx ON articles (created_at) WHERE headline_source = 'provisional'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS articles_provisional_idx`.execute(db);
  await sql`ALTER TABLE articles DROP COLUMN IF EXISTS page_title_sweeps, DROP COLUMN IF EXISTS page_title_failure`.execute(db);
  await sql`DROP TABLE IF EXISTS event_log_state`.execute(db);
  await sql`DROP TABLE IF EXISTS event_outbox`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_outbox_notify()`.execute(db);
  await sql`DROP TABLE IF EXISTS event_log`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_append_only()`.execute(db);
}
