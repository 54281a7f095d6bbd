// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * event_log_draw() announces its transaction once, at the transaction's first event, instead of at
 * every event.
 *
 * The horizon needs only the smallest id a transaction still holds (every later id of that
 * transaction is above it). A lock per id drawn would be dead weight in PostgreSQL's shared lock
 * table: a transaction recording N events would take N slots of a table sized
 * max_locks_per_transaction x max_connections (6,400 with PostgreSQL's defaults), so a large wire
 * ingest could fill it ("out of shared memory"), and while it is full so does any other transaction
 * that needs a lock.
 *
 * The first draw of a transaction takes the "writer in flight" lock, draws, takes the lock on
 * its id and sends the NOTIFY, and marks the transaction (a transaction-local setting,
 * event_log.announced); later draws of the same transaction only draw. A savepoint rolled back
 * undoes the mark together with the locks and the notification taken under it, so the next draw
 * announces again. event_log_horizon() is unchanged.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION event_log_draw() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      id bigint;
    BEGIN
      IF current_setting('event_log.announced', true) = 'on' THEN
        RETURN nextval('event_log_event_id_seq');
      END IF;
      PERFORM pg_advisory_xact_lock_shared(4995617886660722687);
      id := nextval('event_log_event_id_seq');
      PERFORM pg_advisory_xact_lock_shared(4995617886660722688 + id);
      PERFORM pg_notify('event_outbox', '');
      PERFORM set_config('event_log.announced', 'on', true);
      RETURN id;
    END
    $fn$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION event_log_draw() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $fn$
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
}
