// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { sql, type Kysely } from 'kysely';

/**
 * Durable media and bounded growth.
 *
 * media: uploaded files in PostgreSQL, content-addressed (sha256 of the stored, re-encoded bytes is
 * the key and the public name), with their size and the type detected from the bytes. Every web
 * process sees them; no restart loses them. A row is deleted when no profile references it any more.
 * media_aliases: names of pictures from the disk era (random 32-hex names), so old URLs redirect.
 *
 * wire_item_tombstones: what is left of a wire item deleted by retention: the sha256 of its
 * normalised URL (32 bytes) and the source that first carried it. Ingestion skips URLs with a
 * tombstone, so a feed that still lists an old item neither re-ingests nor re-announces it.
 *
 * payment_replay_tombstones: the replay key (sha256) of a payment record deleted by retention. A
 * BEFORE INSERT trigger on payments skips a row whose replay key has a tombstone, so a deleted
 * payment's authorization or transaction can never pay twice (the insert returns no row: a replay).
 *
 * Indexes for the retention jobs' batch deletes (oldest first): telegram_updates (received_at),
 * payments (created_at) of settled or failed payments; users (profile_picture) for the media
 * reference check.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE media (
      sha256 bytea PRIMARY KEY CHECK (length(sha256) = 32),
      content_type text NOT NULL CHECK (content_type IN ('image/jpeg', 'image/png', 'image/gif')),
      size integer NOT NULL CHECK (size > 0),
      bytes bytea NOT NULL CHECK (length(bytes) = size),
      width integer,
      height integer,
      created_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  // The bytes are already compressed images: store them out of line without another compression pass.
  await sql`ALTER TABLE media ALTER COLUMN bytes SET STORAGE EXTERNAL`.execute(db);
  await sql`
    CREATE TABLE media_aliases (
      legacy_name text PRIMARY KEY,
      sha256 bytea NOT NULL REFERENCES media (sha256) ON DELETE CASCADE
    )`.execute(db);
  await sql`CREATE INDEX media_aliases_sha256_idx ON media_aliases (sha256)`.execute(db);
  await sql`CREATE INDEX users_profile_picture_idx ON users (profile_picture) WHERE profile_picture IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE wire_item_tombstones (
      url_sha256 bytea PRIMARY KEY CHECK (length(url_sha256) = 32),
      source_id integer,
      deleted_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`CREATE INDEX wire_item_tombstones_deleted_idx ON wire_item_tombstones (deleted_at)`.execute(db);

  await sql`CREATE INDEX telegram_updates_received_idx ON telegram_updates (received_at)`.execute(db);

  await sql`CREATE INDEX payments_closed_created_idx ON payments (created_at) WHERE state IN ('settled', 'failed')`.execute(db);
  await sql`
    CREATE TABLE payment_replay_tombstones (
      replay_key_sha256 bytea PRIMARY KEY CHECK (length(replay_key_sha256) = 32),
      deleted_at timestamptz NOT NULL DEFAULT now()
    )`.execute(db);
  await sql`
    CREATE FUNCTION payments_refuse_tombstoned_replay() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM payment_replay_tombstones t WHERE t.replay_key_sha256 = sha256(convert_to(NEW.replay_key, 'UTF8'))) THEN
        RETURN NULL;
      END IF;
      RETURN NEW;
    END $$`.execute(db);
  await sql`
    CREATE TRIGGER payments_refuse_tombstoned_replay BEFORE INSERT ON payments
    FOR EACH ROW EXECUTE FUNCTION payments_refuse_tombstoned_replay()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER payments_refuse_tombstoned_replay ON payments`.execute(db);
  await sql`DROP FUNCTION payments_refuse_tombstoned_replay()`.execute(db);
  await sql`DROP TABLE payment_replay_tombstones, wire_item_tombstones, media_aliases, media`.execute(db);
  await sql`DROP INDEX IF EXISTS payments_closed_created_idx, telegram_updates_received_idx, users_profile_picture_idx`.execute(db);
}
