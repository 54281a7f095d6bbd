// Frozen: never edit after it lands. Later changes get a new timestamped file.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import { sql, type Kysely } from 'kysely';
import sharp from 'sharp';

/**
 * Data migration: profile pictures still on the local disk (PROFILE_PICTURES_DIR, default
 * .data/profile-pictures, read from the release's environment) move into the media table; profiles
 * are pointed at their content-addressed names and the old names redirect. Nothing to move (no
 * directory, no profile on an old name) is not an error; a referenced file that is missing is
 * reported and its profile keeps the old name (served as 404 as before). `npm run media:import`
 * runs the same step again later (e.g. from the machine that holds the files).
 *
 * Self-contained, as a migration must be: the re-encoding (metadata stripped, at most 1024 px a
 * side, at most 50 megapixels decoded) and the content-addressed naming are the ones of the release
 * that introduced the media table, written out here so the migration never changes with later code.
 */
const TYPES = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif' } as const;
type Ext = keyof typeof TYPES;

async function sniff(bytes: Uint8Array): Promise<Ext | null> {
  const t = bytes.length ? await fileTypeFromBuffer(bytes) : undefined;
  const ext = t?.ext === 'apng' ? 'png' : t?.ext;
  return ext && ext in TYPES ? (ext as Ext) : null;
}

/** The stored encoding of a picture, or null when it does not decode as its sniffed type. */
async function reencode(input: Uint8Array, ext: Ext): Promise<{ bytes: Buffer; sha256: Buffer; width: number; height: number } | null> {
  let img = sharp(input, { animated: ext === 'gif', limitInputPixels: 50_000_000, failOn: 'error' })
    .rotate()
    .resize({ width: 1024, height: 1024, fit: 'inside', withoutEnlargement: true });
  img = ext === 'jpg' ? img.jpeg({ quality: 85, mozjpeg: true }) : ext === 'png' ? img.png({ compressionLevel: 9 }) : img.gif();
  const out = await img.toBuffer({ resolveWithObject: true }).catch(() => null);
  if (!out || (await sniff(out.data)) !== ext) return null;
  return { bytes: out.data, sha256: createHash('sha256').update(out.data).digest(), width: out.info.width, height: out.info.pageHeight ?? out.info.height };
}

export async function up(db: Kysely<any>): Promise<void> {
  const dir = process.env.PROFILE_PICTURES_DIR || '.data/profile-pictures';
  const refs = await sql<{ name: string }>`
    SELECT DISTINCT profile_picture AS name FROM users WHERE profile_picture ~ '^[0-9a-f]{32}\\.(jpg|png|gif)$'`.execute(db);
  let moved = 0;
  const missing: string[] = [];
  const rejected: string[] = [];
  for (const { name } of refs.rows) {
    const bytes = await readFile(path.join(dir, name)).catch(() => null);
    if (!bytes) {
      missing.push(name);
      continue;
    }
    const ext = await sniff(bytes);
    const pic = ext ? await reencode(bytes, ext) : null;
    if (!ext || !pic) {
      rejected.push(name);
      continue;
    }
    const hex = pic.sha256.toString('hex');
    const newName = `${hex}.${ext}`;
    await sql`SELECT pg_advisory_xact_lock(('x' || substr(${hex}, 1, 16))::bit(64)::bigint)`.execute(db);
    await sql`
      INSERT INTO media (sha256, content_type, size, bytes, width, height)
      VALUES (${pic.sha256}, ${TYPES[ext]}, ${pic.bytes.length}, ${pic.bytes}, ${pic.width}, ${pic.height})
      ON CONFLICT (sha256) DO NOTHING`.execute(db);
    await sql`INSERT INTO media_aliases (legacy_name, sha256) VALUES (${name}, ${pic.sha256}) ON CONFLICT DO NOTHING`.execute(db);
    await sql`UPDATE users SET profile_picture = ${newName} WHERE profile_picture = ${name}`.execute(db);
    moved++;
  }
  if (moved || missing.length || rejected.length) {
    console.log(`media: moved ${moved} profile picture(s) from ${dir} into PostgreSQL; missing ${missing.length}, not decodable ${rejected.length}`);
  }
}

export async function down(): Promise<void> {
  // The pictures stay in the media table (the files were never removed).
}
