/**
 * The release phase: apply pending migrations (Procfile `release`) under the release advisory lock,
 * all in one transaction (src/migrate.ts). A failure exits 1, so the platform does not roll out the
 * new release and the previous one keeps serving on the unchanged schema.
 */
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db.js';
import { releaseMigrate } from '../src/migrate.js';

const config = loadConfig();
const db = createDb(config.DATABASE_URL, { max: 1, applicationName: 'release' });
try {
  const results = await releaseMigrate(config.DATABASE_URL, db, { say: (l) => console.log(l), lockTimeoutMs: config.RELEASE_LOCK_TIMEOUT_MS });
  for (const r of results) console.log(`${r.status === 'Success' ? 'applied' : r.status}: ${r.migrationName}`);
  console.log(results.length ? `${results.length} migration(s) applied` : 'database is up to date');
} catch (err) {
  console.error(`release failed, nothing applied: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
