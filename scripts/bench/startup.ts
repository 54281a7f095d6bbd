/**
 * CPU seconds (user + system) each service process spends from spawn to ready, the working tree
 * against a baseline commit, measured in the same run. Each tree is started two ways:
 *
 *   prebuilt  how tests and drills start their processes: node on the test run's JavaScript copy
 *             (scripts/lib/prebuilt-js.ts of that tree, built here as the test set-up builds it)
 *   tsx       how `npm start` and the launcher tier start them: `node --import tsx src/bin/<name>.ts`
 *
 * Ready: web and ws answer /healthz 200, the worker logs "workers started", the clock "job schedulers
 * upserted" (CPU read from /proc/<pid>/stat at that moment); the release phase (`scripts/migrate.ts`
 * on a migrated database) runs to its exit (CPU from /usr/bin/time). Starts are interleaved round by
 * round (baseline, then working tree, for each process type and way) so a drift in the machine's
 * load hits both alike; the figures are medians with min-max.
 *
 * The baseline's files come from `git archive <ref>` into a temporary directory that shares this
 * checkout's node_modules. Starts its own PostgreSQL and Redis unless DATABASE_URL / REDIS_URL are set.
 *   npm run bench:startup -- [--baseline HEAD] [--rounds 5] [--ways prebuilt,tsx] [--types web,worker,ws,clock,release]
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backingServices } from '../lib/backing-services.js';
import { startNode, type Proc } from '../lib/harness.js';
import { repoRoot } from '../lib/procfile.js';
import { TICKS_PER_S } from '../lib/proc-stat.js';
import { freePort, type RunningService } from '../lib/services.js';
import { benchLog as log, createMigratedBenchDatabase, httpOk, median } from './lib/bench-stack.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}
const BASELINE = arg('baseline', 'HEAD');
const ROUNDS = Number(arg('rounds', '5'));
const WAYS = arg('ways', 'prebuilt,tsx').split(',') as Way[];
const TYPES = arg('types', 'web,worker,ws,clock,release').split(',');

type Way = 'prebuilt' | 'tsx';
const ENTRIES: Record<string, string> = {
  web: 'src/bin/web.ts',
  worker: 'src/bin/worker.ts',
  ws: 'src/bin/ws.ts',
  clock: 'src/bin/clock.ts',
  release: 'scripts/migrate.ts',
};

interface Tree {
  label: string;
  root: string;
  /** The tree's prebuilt JavaScript directory. */
  js: string;
}

/** The tree's prebuilt JavaScript, built by its own builder in a child process (each build owns a directory named after its pid). */
function buildPrebuilt(root: string): string {
  const builder = ['scripts/lib/prebuilt-js.ts', 'test/support/prebuilt-js.ts'].find((f) => existsSync(path.join(root, f)));
  if (!builder) throw new Error(`${root}: no prebuilt-js.ts`);
  const script = [
    `const { buildPrebuiltJs } = await import(${JSON.stringify(path.join(root, builder))});`,
    `const { PREBUILT_JS_ENV } = await import(${JSON.stringify(path.join(root, 'scripts/lib/harness.ts'))});`,
    `await buildPrebuiltJs(${JSON.stringify(root)}, (l) => process.stderr.write(l + '\\n'));`,
    'process.stdout.write(process.env[PREBUILT_JS_ENV]);',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return out.trim();
}

/** The baseline's files (git archive), with this checkout's node_modules. */
function extractBaseline(ref: string, dir: string): string {
  const root = path.join(dir, 'baseline');
  mkdirSync(root, { recursive: true });
  const tar = execFileSync('git', ['-C', repoRoot, 'archive', '--format=tar', ref], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', root], { input: tar });
  symlinkSync(realpathSync(path.join(repoRoot, 'node_modules')), path.join(root, 'node_modules'));
  return root;
}

/** CPU seconds of a long-running process type from spawn to ready. */
async function serviceStart(type: string, argv: string[], cwd: string, env: Record<string, string>): Promise<number> {
  const proc: Proc = startNode(type, argv, env, { cwd });
  const ready = async () => {
    if (type === 'web') return httpOk(`http://127.0.0.1:${env.PORT}/healthz`);
    if (type === 'ws') return httpOk(`http://127.0.0.1:${env.WS_PORT}/healthz`);
    if (type === 'worker') return proc.output().includes('"msg":"workers started"');
    return proc.output().includes('"msg":"job schedulers upserted"');
  };
  const deadline = Date.now() + 120_000;
  try {
    while (!(await ready())) {
      if (!proc.isRunning()) throw new Error(`${type} (${argv.join(' ')}) exited before it was ready:\n${proc.output().slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`${type} (${argv.join(' ')}) not ready in 120 s:\n${proc.output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return proc.cpuTicks() / TICKS_PER_S;
  } finally {
    await proc.stop('SIGTERM', 15_000);
  }
}

/** CPU seconds of a process that runs to its exit (/usr/bin/time's user + system). */
function runToExit(type: string, argv: string[], cwd: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'cpu %U %S', process.execPath, ...argv], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => {
      const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(err);
      if (code !== 0 || !m) reject(new Error(`${type} (${argv.join(' ')}) exited ${code}:\n${err.slice(-3000)}`));
      else resolve(Number(m[1]) + Number(m[2]));
    });
  });
}

function argvFor(tree: Tree, way: Way, type: string): string[] {
  const entry = ENTRIES[type];
  if (way === 'prebuilt') return [path.join(tree.js, entry.replace(/\.ts$/, '.js'))];
  return ['--import', 'tsx', path.join(tree.root, entry)];
}

const fmt = (xs: number[]) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-startup-'));
const started: RunningService[] = [];
const trees: Tree[] = [];
try {
  const baseRev = execFileSync('git', ['-C', repoRoot, 'rev-parse', '--short', BASELINE], { encoding: 'utf8' }).trim();
  const baseRoot = extractBaseline(BASELINE, tmp);
  for (const [label, root] of [
    [`baseline ${baseRev}`, baseRoot],
    ['working tree', repoRoot],
  ]) {
    const t0 = Date.now();
    trees.push({ label, root, js: WAYS.includes('prebuilt') ? buildPrebuilt(root) : '' });
    log(`${label}: prebuilt JavaScript in ${Date.now() - t0} ms`);
  }
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log });
  const dbName = `squid_bench_startup_${process.pid}`;
  const { admin, url: databaseUrl } = await createMigratedBenchDatabase(adminUrl, dbName);
  const env = {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `benchstart${process.pid}`,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    LOG_LEVEL: 'info',
    DATA_DIR: path.join(tmp, 'data'),
    PORT: String(await freePort()),
    WS_PORT: String(await freePort()),
  };

  console.log(
    `node ${process.version}, ${os.cpus().length} cores (shared), load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${ROUNDS} rounds`,
  );
  const cpu = new Map<string, number[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const way of WAYS) {
      for (const type of TYPES) {
        for (const tree of trees) {
          const argv = argvFor(tree, way, type);
          const s = type === 'release' ? await runToExit(type, argv, tree.root, env) : await serviceStart(type, argv, tree.root, env);
          const key = `${way}\t${type}\t${tree.label}`;
          cpu.set(key, [...(cpu.get(key) ?? []), s]);
          log(`round ${round} ${way.padEnd(8)} ${type.padEnd(7)} ${tree.label}: ${s.toFixed(2)} s CPU`);
        }
      }
    }
  }

  console.log(`\nCPU seconds from spawn to ready (median, min-max of ${ROUNDS}); load at the end ${os.loadavg()[0].toFixed(2)}`);
  console.log(`${'way'.padEnd(9)} ${'process'.padEnd(8)} ${trees[0].label.padEnd(18)} ${trees[1].label.padEnd(18)} ratio`);
  for (const way of WAYS) {
    for (const type of TYPES) {
      const [base, now] = trees.map((t) => cpu.get(`${way}\t${type}\t${t.label}`)!);
      console.log(`${way.padEnd(9)} ${type.padEnd(8)} ${fmt(base).padEnd(18)} ${fmt(now).padEnd(18)} ${(median(now) / median(base)).toFixed(2)}`);
    }
  }
  await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
  await admin.end();
} finally {
  for (const s of started.reverse()) await s.stop().catch(() => undefined);
  for (const t of trees) if (t.js) rmSync(t.js, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
}
