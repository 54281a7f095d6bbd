// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * event_log_draw() sends no pg_notify('event_outbox'): the relay's waker polls the outbox
 * (src/relay/waker.ts).
 *
 * PostgreSQL serialises the commits of all transactions that sent a notification: PreCommit_Notify
 * takes one database-wide lock and holds it until the transaction has committed, commit record
 * flushed, so that notifications enter the queue in commit order: every notifying transaction
 * queues behind every other one at COMMIT, a large share of the submission path's throughput under
 * concurrency.
 *
 * During a deploy the previous release's workers, which LISTEN, get no more notifications: until
 * the new workers replace them their events wait for the clock's 2 s sweep. The announcement's
 * locks and the transaction-local mark stay as they were (migration 20261129T090000).
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
