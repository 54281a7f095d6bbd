/** Retention deletes, one batch each (src/platform/prune.ts says what each table leaves behind). */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';

export async function pruneWireItems(db: Db, cutoff: Date, batch: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const r = await sql<{ n: number }>`
      WITH doomed AS (
        SELECT id, normalized_url, source_id FROM wire_items
        WHERE ingested_at < ${cutoff}
        ORDER BY ingested_at DESC, id DESC
        LIMIT ${batch}
        FOR UPDATE SKIP LOCKED
      ), tombs AS (
        INSERT INTO wire_item_tombstones (url_sha256, source_id)
        SELECT sha256(convert_to(normalized_url, 'UTF8')), source_id FROM doomed
        ON CONFLICT (url_sha256) DO NOTHING
      ), gone AS (
        DELETE FROM wire_items w USING doomed d WHERE w.id = d.id RETURNING 1
      )
      SELECT count(*)::int AS n FROM gone`.execute(trx);
    return Number(r.rows[0].n);
  });
}

export async function pruneWireTombstones(db: Db, cutoff: Date, batch: number): Promise<number> {
  const r = await sql`
    DELETE FROM wire_item_tombstones WHERE url_sha256 IN (
      SELECT url_sha256 FROM wire_item_tombstones WHERE deleted_at < ${cutoff} ORDER BY deleted_at LIMIT ${batch} FOR UPDATE SKIP LOCKED)`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function pruneTelegramUpdates(db: Db, cutoff: Date, batch: number): Promise<number> {
  const r = await sql`
    DELETE FROM telegram_updates WHERE update_id IN (
      SELECT update_id FROM telegram_updates WHERE received_at < ${cutoff} ORDER BY received_at LIMIT ${batch} FOR UPDATE SKIP LOCKED)`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function prunePayments(db: Db, cutoff: Date, batch: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const r = await sql<{ n: number }>`
      WITH doomed AS (
        SELECT id, replay_key FROM payments
        WHERE state IN ('settled', 'failed') AND created_at < ${cutoff}
        ORDER BY created_at
        LIMIT ${batch}
        FOR UPDATE SKIP LOCKED
      ), tombs AS (
        INSERT INTO payment_replay_tombstones (replay_key_sha256)
        SELECT sha256(convert_to(replay_key, 'UTF8')) FROM doomed
        ON CONFLICT DO NOTHING
      ), gone AS (
        DELETE FROM payments p USING doomed d WHERE p.id = d.id RETURNING 1
      )
      SELECT count(*)::int AS n FROM gone`.execute(trx);
    return Number(r.rows[0].n);
  });
}
