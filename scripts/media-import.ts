/** Move profile pictures of the disk era into PostgreSQL (same step as migration 20261125T210500). */
import { loadConfig } from '../src/platform/config.js';
import { createDb } from '../src/platform/db.js';
import { importPicturesFromDisk } from '../src/media/import-disk.js';

const config = loadConfig();
const dir = process.argv[2] ?? config.PROFILE_PICTURES_DIR;
const db = createDb(config.DATABASE_URL, { max: 1, applicationName: 'media-import' });
try {
  const r = await db.transaction().execute((trx) => importPicturesFromDisk(trx, dir));
  console.log(`moved ${r.moved} picture(s) from ${dir}; missing: ${r.missing.join(', ') || 'none'}; not decodable: ${r.rejected.join(', ') || 'none'}`);
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
