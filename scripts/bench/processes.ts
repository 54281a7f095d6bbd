/**
 * Resident memory and time-to-ready of each Procfile process, run from the build and from source.
 * For every process type (web, worker, ws, clock), three variants, started one
 * at a time against the same migrated database, interleaved round by round (medians of 3):
 *
 *   tsx          `tsx src/bin/<name>.ts` (tsx's CLI plus the node it spawns)
 *   node+tsx     what `npm start` and the tests run: `node --import tsx src/bin/<name>.ts`
 *   node dist    the Procfile: `node dist/src/bin/<name>.js` (after `npm run build`)
 *
 * Time-to-ready: spawn until web answers /readyz 200, ws answers /healthz 200, the worker logs
 * "workers started", the clock logs "job schedulers upserted". RSS: VmRSS summed over the process
 * and its descendants, read 2 s after ready (idle, nothing in flight). Every process runs with
 * NODE_ENV=production and only the platform's environment (bash -c, as the e2e test does).
 *
 * Starts its own PostgreSQL and Redis unless DATABASE_URL / REDIS_URL are set.
 *   npm run bench:processes [-- --rounds 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDist, platformEnv } from '../lib/build.js';
import { repoRoot, serviceTypes } from '../lib/procfile.js';
import { freePort, type RunningService } from '../lib/services.js';
import { backingServices } from '../lib/backing-services.js';
import { startShell } from '../lib/harness.js';
import { treeRssKb } from '../lib/proc-stat.js';
import { createMigratedBenchDatabase, httpOk } from './lib/bench-stack.js';

const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;
const SETTLE_MS = 2000;
const log = (l: string) => console.error(`[bench] ${l}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

type Variant = 'tsx' | 'node+tsx' | 'node dist';
const VARIANTS: Variant[] = ['tsx', 'node+tsx', 'node dist'];

function command(variant: Variant, entry: string, built: string): string {
  if (variant === 'tsx') return `${path.join(repoRoot, 'node_modules/.bin/tsx')} ${entry}`;
  if (variant === 'node+tsx') return `node --import tsx ${entry}`;
  return `node ${built}`;
}

async function runOnce(name: string, cmd: string, vars: Record<string, string>, webPort: number, wsPort: number): Promise<{ readyMs: number; rssMb: number }> {
  const t0 = performance.now();
  const child = startShell(name, cmd, platformEnv({ ...vars, PORT: String(webPort), WS_PORT: String(wsPort) }));
  const ready = async () => {
    if (name === 'web') return httpOk(`http://127.0.0.1:${webPort}/readyz`);
    if (name === 'ws') return httpOk(`http://127.0.0.1:${wsPort}/healthz`);
    if (name === 'worker') return child.output().includes('"msg":"workers started"');
    return child.output().includes('"msg":"job schedulers upserted"');
  };
  const deadline = Date.now() + 120_000;
  while (!(await ready())) {
    if (!child.isRunning()) throw new Error(`${name} (${cmd}) exited before it was ready:\n${child.output().slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`${name} (${cmd}) not ready in 120 s:\n${child.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const readyMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const rssMb = treeRssKb(child.pid) / 1024;
  await child.stop('SIGTERM', 15_000);
  return { readyMs, rssMb };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-procs-'));
const started: RunningService[] = [];
try {
  const build = await buildDist();
  console.log(`npm run build: ${(build.ms / 1000).toFixed(1)} s`);
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log });
  const dbName = `squid_bench_procs_${process.pid}`;
  const { admin, url: databaseUrl } = await createMigratedBenchDatabase(adminUrl, dbName);
  const vars = {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `benchprocs${process.pid}`,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    LOG_LEVEL: 'info',
    DATA_DIR: path.join(tmp, 'data'),
  };

  console.log(`node ${process.version}, ${os.cpus().length} cores (shared), ${ROUNDS} rounds, RSS ${SETTLE_MS / 1000} s after ready`);
  const results = new Map<string, { readyMs: number[]; rssMb: number[] }>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of serviceTypes()) {
      for (const v of VARIANTS) {
        const r = await runOnce(t.name, command(v, t.entry, t.built!), vars, await freePort(), await freePort());
        const key = `${t.name}\t${v}`;
        const acc = results.get(key) ?? { readyMs: [], rssMb: [] };
        acc.readyMs.push(r.readyMs);
        acc.rssMb.push(r.rssMb);
        results.set(key, acc);
        log(`round ${round} ${t.name.padEnd(6)} ${v.padEnd(9)} ready ${r.readyMs.toFixed(0)} ms, RSS ${r.rssMb.toFixed(0)} MB`);
      }
    }
  }
  console.log('\nprocess  variant    ready (median ms)  RSS (median MB)   vs tsx (ready, RSS)');
  for (const t of serviceTypes()) {
    const base = results.get(`${t.name}\ttsx`)!;
    for (const v of VARIANTS) {
      const r = results.get(`${t.name}\t${v}`)!;
      const ready = median(r.readyMs);
      const rss = median(r.rssMb);
      const rel = v === 'tsx' ? 'baseline' : `${(ready / median(base.readyMs)).toFixed(2)}x, ${(rss / median(base.rssMb)).toFixed(2)}x`;
      console.log(`${t.name.padEnd(8)} ${v.padEnd(10)} ${ready.toFixed(0).padStart(17)}  ${rss.toFixed(0).padStart(15)}   ${rel}`);
    }
  }
  await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
  await admin.end();
} finally {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  rmSync(tmp, { recursive: true, force: true });
}
