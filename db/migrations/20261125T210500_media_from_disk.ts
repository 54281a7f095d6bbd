// Frozen: never edit after it lands. Later changes get a new timestamped file.
import type { Kysely } from 'kysely';
import { importPicturesFromDisk } from '../../src/media/import-disk.js';

/**
 * Data migration: profile pictures still on the local disk (PROFILE_PICTURES_DIR, default
 * .data/profile-pictures, read from the release's environment) move into the media table; profiles
 * are pointed at their content-addressed names and the old names redirect. Nothing to move (no
 * directory, no profile on an old name) is not an error; a referenced file that is missing is
 * reported and its profile keeps the old name (served as 404 as before). `npm run media:import`
 * runs the same step again later (e.g. from the machine that holds the files).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const dir = process.env.PROFILE_PICTURES_DIR || '.data/profile-pictures';
  const r = await importPicturesFromDisk(db, dir);
  if (r.moved || r.missing.length || r.rejected.length) {
    console.log(`media: moved ${r.moved} profile picture(s) from ${dir} into PostgreSQL; missing ${r.missing.length}, not decodable ${r.rejected.length}`);
  }
}

export async function down(): Promise<void> {
  // The pictures stay in the media table (the files were never removed).
}
