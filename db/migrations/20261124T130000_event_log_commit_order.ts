// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Event ids drawn at commit, so that the event-order lock is never held across a round trip to the
 * application (the writer's COMMIT), which would let only one writer at a time make progress.
 *
 * recordEvents stages the events in event_log_staged (UNLOGGED: its rows never outlive their
 * transaction). A deferred constraint trigger runs at COMMIT, inside PostgreSQL: it takes the
 * event-order lock, draws the ids in staging order, writes event_log (payload with event_id, attrs
 * as the articles are at that moment) and event_outbox (whose trigger NOTIFYs the relay), and
 * empties the transaction's staged rows. The lock is held only from there to the end of the commit,
 * with no round trip to the client, and ids still become visible in increasing order. The first
 * firing in a transaction does all the work; later firings find nothing staged.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE UNLOGGED TABLE event_log_staged (
      seq bigint GENERATED ALWAYS AS IDENTITY,
      txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
      type text NOT NULL,
      article_id integer,
      visibility text NOT NULL,
      payload text NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX event_log_staged_txid_idx ON event_log_staged (txid, seq)`.execute(db);

  await sql`
    CREATE FUNCTION event_log_stage(types text[], article_ids int[], visibilities text[], payloads text[]) RETURNS void
    LANGUAGE sql AS $fn$
      INSERT INTO event_log_staged (type, article_id, visibility, payload)
      SELECT x.type, x.article_id, x.visibility, x.payload
      FROM unnest(types, article_ids, visibilities, payloads) WITH ORDINALITY AS x(type, article_id, visibility, payload, ord)
      ORDER BY x.ord
    $fn$`.execute(db);

  await sql`
    CREATE FUNCTION event_log_commit() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      -- Held until the end of this commit: ids become visible in the order they are drawn.
      PERFORM pg_advisory_xact_lock(357846829380);
      WITH staged AS (
        DELETE FROM event_log_staged WHERE txid = pg_current_xact_id() RETURNING seq, type, article_id, visibility, payload
      ), ordered AS (
        SELECT nextval('event_log_event_id_seq') AS event_id, s.*
        FROM (SELECT * FROM staged ORDER BY seq) s
      ), logged AS (
        INSERT INTO event_log (event_id, type, article_id, visibility, payload, attrs)
        SELECT o.event_id, o.type, o.article_id, o.visibility,
               (left(o.payload, -1) || CASE WHEN o.payload = '{}' THEN '' ELSE ',' END || '"event_id":' || o.event_id || '}')::json,
               CASE WHEN o.visibility <> 'internal' AND a.id IS NOT NULL
                    THEN json_build_object('tags', a.tags, 'token_addresses', a.token_addresses, 'token_symbols', a.token_symbols) END
        FROM ordered o LEFT JOIN articles a ON a.id = o.article_id
        RETURNING event_id, article_id
      )
      INSERT INTO event_outbox (event_id, article_id) SELECT event_id, article_id FROM logged;
      RETURN NULL;
    END
    $fn$`.execute(db);
  await sql`
    CREATE CONSTRAINT TRIGGER event_log_staged_commit AFTER INSERT ON event_log_staged
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION event_log_commit()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS event_log_staged`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_commit()`.execute(db);
  await sql`DROP FUNCTION IF EXISTS event_log_stage(text[], int[], text[], text[])`.execute(db);
}
