/**
 * Demo data for a newcomer's first `npm start`: a few users (an editor and a staff member among
 * them), articles in every state with tags, tokens and an issuer, yaps and votes, a wire source. Loaded only into
 * an empty database (no users, no articles), so it never mixes with real data.
 *
 * To extend it, add a part under scripts/seed/ and list it in `seedParts` (parts run in order in
 * one transaction and can look up the ids of earlier parts' rows through the context).
 *
 * Standalone: `npm run seed` (migrates first, then seeds if the database is empty).
 */
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../src/platform/config.js';
import { createDb, type Db } from '../src/platform/db.js';
import { migrateToLatest } from '../src/platform/migrate.js';
import { articles } from './seed/articles.js';
import { discussion } from './seed/discussion.js';
import type { SeedContext, SeedPart } from './seed/types.js';
import { users } from './seed/users.js';
import { wire } from './seed/wire.js';
import { NoStackError, withDevStack } from './lib/dev-stack.js';

export const seedParts: SeedPart[] = [users, articles, discussion, wire];

/** True when the database holds no users and no articles (a fresh install). */
export async function databaseIsEmpty(db: Db): Promise<boolean> {
  const { rows } = await sql<{ any: boolean }>`
    SELECT EXISTS (SELECT 1 FROM users) OR EXISTS (SELECT 1 FROM articles) AS any`.execute(db);
  return !rows[0].any;
}

/**
 * Load the demo data if the database is empty. Returns rows inserted per part, or null when the
 * database already had data and nothing was done.
 */
export async function seedDemo(db: Db, now = new Date()): Promise<Record<string, number> | null> {
  return db.transaction().execute(async (trx) => {
    // Two launchers seeding the same empty database at once must not both insert.
    await sql`SELECT pg_advisory_xact_lock(hashtext('squid-demo-seed'))`.execute(trx);
    if (!(await databaseIsEmpty(trx))) return null;
    const ctx: SeedContext = {
      trx,
      now,
      users: new Map(),
      articles: new Map(),
      ago: (hours) => new Date(now.getTime() - hours * 3600_000),
    };
    const counts: Record<string, number> = {};
    for (const part of seedParts) counts[part.name] = await part.run(ctx);
    return counts;
  });
}

export function describeSeed(counts: Record<string, number> | null): string {
  if (!counts) return 'database already has data; demo data not loaded';
  return `loaded demo data: ${Object.entries(counts)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ')}`;
}

async function main() {
  let config;
  try {
    // Beside `npm start` no URLs are needed: its servers are found through DATA_DIR/stack.json.
    const stack = await withDevStack(process.env);
    if (stack.note) console.error(stack.note);
    config = loadConfig(stack.env);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof NoStackError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
  const db = createDb(config.DATABASE_URL, { max: 1, applicationName: 'seed' });
  try {
    await migrateToLatest(db);
    console.log(describeSeed(await seedDemo(db)));
  } catch (err) {
    console.error(`seed failed: ${(err as Error).message}`);
    process.exitCode = 1;
  } finally {
    await db.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
