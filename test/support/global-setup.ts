/**
 * Starts real PostgreSQL and Redis for the whole test run unless DATABASE_URL / REDIS_URL point at
 * running ones, and migrates a template database that each test file clones (CREATE DATABASE ...
 * TEMPLATE), so files are isolated and cheap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { launcherEnv } from '../../src/config.js';
import { createDb } from '../../src/db.js';
import { migrateToLatest } from '../../src/migrate.js';
import { backingServices } from '../../scripts/lib/backing-services.js';
import type { RunningService } from '../../scripts/lib/services.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    templateDb: string;
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const env = launcherEnv();
  const log = (l: string) => process.stderr.write(`[test-setup] ${l}\n`);
  const started: RunningService[] = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-test-'));
  try {
    return await start(project, env, log, started, tmp);
  } catch (err) {
    for (const s of started.reverse()) await s.stop();
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

async function start(project: TestProject, env: ReturnType<typeof launcherEnv>, log: (l: string) => void, started: RunningService[], tmp: string) {
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log, databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL });

  const templateDb = `squid_tpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${templateDb}`);
  await admin.query(`CREATE DATABASE ${templateDb}`);
  const tplUrl = new URL(adminUrl);
  tplUrl.pathname = `/${templateDb}`;
  const db = createDb(tplUrl.toString(), { max: 1 });
  await migrateToLatest(db);
  await db.destroy();

  project.provide('pgAdminUrl', adminUrl);
  project.provide('templateDb', templateDb);
  project.provide('redisUrl', redisUrl);

  return async () => {
    try {
      const { rows } = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [templateDb, `squid_t_${process.pid}_%`]);
      for (const r of rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
    } catch {
      /* the server is going away anyway */
    }
    await admin.end().catch(() => undefined);
    for (const s of started.reverse()) await s.stop();
    rmSync(tmp, { recursive: true, force: true });
  };
}
