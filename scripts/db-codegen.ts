/**
 * Regenerate db/schema.ts from the migrations: migrates a throwaway database (an embedded Postgres
 * in a temp dir, or a fresh database on DATABASE_URL's server) and writes the Database interface.
 *   npm run db:codegen
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { launcherEnv } from '../src/platform/config.js';
import { createDb } from '../src/platform/db.js';
import { migrateToLatest } from '../src/platform/migrate.js';
import { generateSchemaSource } from './lib/schema-codegen.js';
import { freePort, startPostgres } from './lib/services.js';

const env = launcherEnv();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-codegen-'));
const svc = env.DATABASE_URL ? null : await startPostgres({ port: await freePort(), dir: path.join(tmp, 'pg'), log: () => undefined, database: 'postgres', durable: false });
const adminUrl = env.DATABASE_URL ?? svc!.url;
const name = `squid_codegen_${process.pid}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
try {
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const db = createDb(u.toString(), { max: 1 });
  try {
    await migrateToLatest(db);
    writeFileSync(new URL('../db/schema.ts', import.meta.url), await generateSchemaSource(db));
    console.log('wrote db/schema.ts');
  } finally {
    await db.destroy();
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  await svc?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
