/** The release phase: apply pending migrations (Procfile `release`). */
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db.js';
import { migrateToLatest } from '../src/migrate.js';

const config = loadConfig();
const db = createDb(config.DATABASE_URL, { max: 1, applicationName: 'release' });
try {
  const results = await migrateToLatest(db);
  for (const r of results) console.log(`${r.status === 'Success' ? 'applied' : r.status}: ${r.migrationName}`);
  console.log(results.length ? `${results.length} migration(s) applied` : 'database is up to date');
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
