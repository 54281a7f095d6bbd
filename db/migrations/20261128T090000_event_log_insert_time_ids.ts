// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';
import { up as commitOrderUp } from './20261124T130000_event_log_commit_order.js';
import { up as commitLookupUp } from './20261127T090000_event_log_commit_lookup.js';

/**
 * Event ids drawn when the event is written, not at COMMIT, so that event-writing commits do not
 * serialise: drawing ids at commit under one advisory lock makes every event-writing commit wait for
 * the one before, and the staging row, the trigger and its second pass over the rows cost more than
 * the event rows themselves.
 *
 * The writer inserts event_log and event_outbox rows itself, in its own statement, with ids
 * from event_log_draw(). Ids can then commit out of order, so readers (the relay's claim and
 * GET /api/v1/events/) read only up to the **horizon**: the highest id below which every drawn id
 * is final (committed or rolled back). event_log_draw() makes the writers that can still commit an
 * id visible without a commit: it takes a shared advisory lock "an event writer is in flight"
 * (EVENT_WRITER_KEY) before drawing, draws, then takes a shared lock on a key carrying the id
 * (EVENT_ID_LOCK_BASE + id); both are held to the end of the transaction. event_log_horizon()
 * reads the sequence's last value first, then the granted locks: the horizon is that value, or one
 * below the smallest id still held. A writer holding the first lock without the second yet is
 * counted in `unknown`: the caller then keeps its previous horizon (such a writer's id is above
 * every horizon computed before, because it held the first lock since before it drew).
 *  - Shared locks never wait for each other: writers do not serialise. Nothing takes these keys
 *    exclusively. Another lock on the same key (a hash colliding with it) can only make a horizon
 *    lower for a moment, never wrong.
 *  - A lock is released after its transaction's commit is visible, so a row at or below the
 *    horizon is visible to any statement that starts after the horizon was read.
 *  - pg_notify('event_outbox') moves from the commit trigger into event_log_draw(): still
 *    delivered only at commit, once per transaction.
 *  - The staging table, its function and the commit trigger go.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS event_log_staged_commit ON event_log_staged`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_commit()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_stage(text[], int[], text[], text[])`.execute(db);
  await sql`DROP TABLE IF EXISTS event_log_staged`.execute(db);
  await sql`
    CREATE FUNCTION event_log_draw() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      id bigint;
    BEGIN
      PERFORM pg_advisory_xact_lock_shared(4995617886660722687);
      id := nextval('event_log_event_id_seq');
      PERFORM pg_advisory_xact_lock_shared(4995617886660722688 + id);
      PERFORM pg_notify('event_outbox', '');
      RETURN id;
    END
    $fn$`.execute(db);
  // The writers' statement, in functions so that its plan is made once per connection (the calling
  // statements stay tiny: INSERT INTO event_outbox SELECT * FROM event_log_write1(...)). One event:
  // its id is drawn, the payload gains its event_id, and attrs are given (an article the calling
  // statement itself inserts, which this one cannot read) or read from the article by its key.
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
  // Several events: one event_log_write1() each, in the order given, so ids follow that order and
  // the row is written in one place. (A set-based INSERT over the unnested arrays costs more per call
  // in the one-event case.)
  await sql`
    CREATE FUNCTION event_log_write(types text[], article_ids int[], visibilities text[], payloads text[], given_attrs json)
    RETURNS TABLE (event_id bigint, article_id int) LANGUAGE plpgsql VOLATILE AS $fn$
    BEGIN
      FOR i IN 1 .. coalesce(array_length(types, 1), 0) LOOP
        RETURN QUERY SELECT w.event_id, w.article_id FROM event_log_write1(types[i], article_ids[i], visibilities[i], payloads[i], given_attrs) w;
      END LOOP;
    END
    $fn$`.execute(db);
  await sql`
    CREATE FUNCTION event_log_horizon(OUT top bigint, OUT first_pending bigint, OUT unknown int) LANGUAGE plpgsql VOLATILE AS $fn$
    BEGIN
      -- First the last id drawn, then who still holds one: a writer that drew an id at or below
      -- top holds its locks in the second read unless it has finished.
      top := coalesce(pg_sequence_last_value('event_log_event_id_seq'::regclass), 0);
      WITH held AS (
        SELECT pid, (classid::bigint << 32) | objid::bigint AS k
        FROM pg_locks
        WHERE locktype = 'advisory' AND objsubid = 1 AND granted AND mode = 'ShareLock'
          AND database = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
      )
      SELECT min(k - 4995617886660722688) FILTER (WHERE k > 4995617886660722687),
             (SELECT count(*) FROM (SELECT pid FROM held WHERE k = 4995617886660722687
                                    EXCEPT SELECT pid FROM held WHERE k > 4995617886660722687) w)::int
        INTO first_pending, unknown
      FROM held;
    END
    $fn$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS event_log_horizon()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_write(text[], int[], text[], text[], json)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_write1(text, int, text, text, json)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_draw()`.execute(db);
  await commitOrderUp(db);
  await commitLookupUp(db);
}
