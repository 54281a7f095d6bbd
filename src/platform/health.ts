import { sql } from 'kysely';
import type { Db } from './db.js';

/** The cheapest round trip to PostgreSQL: readiness probes and the workers' outage check. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
