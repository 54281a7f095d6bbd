import { Migrator, type Kysely, type MigrationResult } from 'kysely';
import { migrations } from '../db/migrations/index.js';

/** Apply every pending migration of db/migrations/index.ts. */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResult[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
  return results ?? [];
}
