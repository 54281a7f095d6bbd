import { Migrator, type Kysely, type MigrationResult } from 'kysely';
import pg from 'pg';
import { migrations } from '../../db/migrations/index.js';

/**
 * Apply every pending migration of db/migrations/index.ts.
 *
 * All pending migrations run in ONE transaction (Kysely's Migrator on PostgreSQL, whose DDL is
 * transactional): if any of them fails, none of the batch is applied and the schema is exactly what
 * the previous release runs on.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResult[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
  return results ?? [];
}

/** Key of the session-level advisory lock a release holds while it migrates ("squid release"). */
export const RELEASE_LOCK_KEY = 0x5351_5549_4452_454cn;

/**
 * The release phase: take the release advisory lock (waiting, with `say` telling why, while another
 * release holds it), then apply pending migrations in one transaction, then unlock. Two releases
 * started at once never both migrate: the second waits, then finds the database up to date.
 * The lock lives on its own connection, so a release that dies mid-migration releases it with its
 * connection (and PostgreSQL rolls its transaction back).
 */
export async function releaseMigrate(databaseUrl: string, db: Kysely<any>, opts: { say: (line: string) => void; lockTimeoutMs: number }): Promise<MigrationResult[]> {
  const lock = new pg.Client({ connectionString: databaseUrl, application_name: 'release-lock' });
  await lock.connect();
  try {
    const key = RELEASE_LOCK_KEY.toString();
    const got = await lock.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
    if (!got.rows[0].ok) {
      opts.say(`another release holds the migration lock; waiting (up to ${Math.round(opts.lockTimeoutMs / 1000)} s)`);
      await lock.query(`SET lock_timeout = ${Math.max(0, Math.floor(opts.lockTimeoutMs))}`);
      try {
        await lock.query('SELECT pg_advisory_lock($1::bigint)', [key]);
      } catch (err) {
        if ((err as { code?: string }).code === '55P03') throw new Error(`gave up waiting for the migration lock after ${opts.lockTimeoutMs} ms`);
        throw err;
      }
      opts.say('migration lock acquired');
    }
    try {
      return await migrateToLatest(db);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined);
    }
  } finally {
    await lock.end().catch(() => undefined);
  }
}
