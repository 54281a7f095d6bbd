/**
 * The release phase: apply pending migrations (Procfile `release`) under the release advisory lock,
 * all in one transaction (src/platform/migrate.ts). A failure exits 1, so the platform does not roll out the
 * new release and the previous one keeps serving on the unchanged schema.
 */
import { ConfigError, loadConfig, type Config } from '../src/platform/config.js';
import { createDb } from '../src/platform/db.js';
import { releaseMigrate } from '../src/platform/migrate.js';
import { NoStackError, withDevStack } from './lib/dev-stack.js';

let config: Config;
try {
  // `npm run migrate` beside `npm start` uses its servers; in production (NODE_ENV=production) and
  // whenever DATABASE_URL is set, only the environment counts.
  const stack = await withDevStack(process.env);
  if (stack.note) console.error(stack.note);
  config = loadConfig(stack.env);
} catch (err) {
  if (!(err instanceof ConfigError || err instanceof NoStackError)) throw err;
  console.error(err.message);
  process.exit(78);
}
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
