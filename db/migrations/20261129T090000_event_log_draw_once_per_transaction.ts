// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * event_log_draw() announces its transaction once, at the transaction's first event, instead of at
 * every event.
 *
 * Before: each id drawn took a shared advisory lock of its own (EVENT_ID_LOCK_BASE + id), held to
 * the end of the transaction, and sent the NOTIFY again. The horizon needs only the smallest id a
 * transaction still holds (every later id of that transaction is above it), so the other locks
 * were dead weight in PostgreSQL's shared lock table: a transaction recording N events took N
 * slots of a table sized max_locks_per_transaction x max_connections (12,800 with the embedded
 * server's settings, 6,400 with PostgreSQL's defaults). A wire ingest of 1,000 new items (one
 * transaction, 1,000 news.tsunami events) took 1,000 of them; a transaction of 50,000 events
 * failed with "out of shared memory" (max_connections 100), and while the table is full so does
 * any other transaction that needs a lock.
 *
 * Now the first draw of a transaction takes the "writer in flight" lock, draws, takes the lock on
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
