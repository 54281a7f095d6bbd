/**
 * The media table (src/media/store.ts explains the design): writes under transaction-scoped advisory
 * locks per hash, and the reads behind MediaReader and the disk-era import.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import { mediaName, parseMediaName, type NewMedia } from './rules/media-name.js';

type Tx = Transaction<Database>;

/** Advisory locks (transaction scope) on the given hashes, in a fixed order. */
export async function lockMedia(trx: Tx, hashes: (Buffer | null | undefined)[]): Promise<void> {
  const keys = [...new Set(hashes.filter((h): h is Buffer => !!h).map((h) => h.toString('hex')))].sort();
  for (const k of keys) await sql`SELECT pg_advisory_xact_lock(('x' || substr(${k}, 1, 16))::bit(64)::bigint)`.execute(trx);
}

/** Insert the media row (a no-op when the same bytes are stored already). Call with the hash locked. */
export async function putMedia(trx: Tx | Db, m: NewMedia): Promise<string> {
  await sql`
    INSERT INTO media (sha256, content_type, size, bytes, width, height)
    VALUES (${m.sha256}, ${m.type}, ${m.bytes.length}, ${m.bytes}, ${m.width ?? null}, ${m.height ?? null})
    ON CONFLICT (sha256) DO NOTHING`.execute(trx);
  return mediaName(m.sha256, m.type);
}

/** Delete the media row behind `name` when no profile references it any more. Call with the hash locked. */
export async function deleteMediaIfUnreferenced(trx: Tx, name: string | null | undefined): Promise<boolean> {
  const parsed = name ? parseMediaName(name) : null;
  if (!parsed) return false;
  const r = await sql`
    DELETE FROM media m WHERE m.sha256 = ${parsed.sha256}
      AND NOT EXISTS (SELECT 1 FROM users u WHERE u.profile_picture = ${name})`.execute(trx);
  return Number(r.numAffectedRows ?? 0) > 0;
}

export async function mediaBytes(db: Db, sha256: Buffer): Promise<{ bytes: Buffer; content_type: string } | undefined> {
  const r = await sql<{ bytes: Buffer; content_type: string }>`SELECT bytes, content_type FROM media WHERE sha256 = ${sha256}`.execute(db);
  return r.rows[0];
}

export async function mediaExists(db: Db, sha256: Buffer, type: string): Promise<boolean> {
  const r = await sql`SELECT 1 FROM media WHERE sha256 = ${sha256} AND content_type = ${type}`.execute(db);
  return r.rows.length > 0;
}

/** The media row a disk-era name is an alias of. */
export async function mediaOfAlias(db: Db, legacyName: string): Promise<{ sha256: Buffer; content_type: string } | undefined> {
  const r = await sql<{ sha256: Buffer; content_type: string }>`
    SELECT m.sha256, m.content_type FROM media_aliases a JOIN media m ON m.sha256 = a.sha256 WHERE a.legacy_name = ${legacyName}`.execute(db);
  return r.rows[0];
}

/** Profile pictures still referenced under a disk-era name. */
export async function legacyPictureNames(db: Transaction<any> | Kysely<any>): Promise<string[]> {
  const refs = await sql<{ name: string }>`
    SELECT DISTINCT profile_picture AS name FROM users
    WHERE profile_picture ~ '^[0-9a-f]{32}\\.(jpg|png|gif)$'`.execute(db);
  return refs.rows.map((r) => r.name);
}

/** Keep the disk-era name as an alias of the stored picture and point every profile that uses it at the new name. */
export async function aliasLegacyPicture(trx: Transaction<any> | Kysely<any>, legacyName: string, sha256: Buffer, newName: string): Promise<void> {
  await sql`INSERT INTO media_aliases (legacy_name, sha256) VALUES (${legacyName}, ${sha256}) ON CONFLICT DO NOTHING`.execute(trx);
  await sql`UPDATE users SET profile_picture = ${newName} WHERE profile_picture = ${legacyName}`.execute(trx);
}
