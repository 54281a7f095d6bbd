/**
 * Leaderboard benchmark: one month with 1,000,000 article votes, 200,000 yaps,
 * 50,000 submissions (with their editorial reviews) and 20,000 users, generated with generate_series.
 * Measures:
 *  1. wall time of the leaderboard computation of that month (the `leaderboards` job's work for one
 *     month: one transaction, one INSERT ... SELECT over every board), cold and warm (goal < 10 s);
 *  2. GET /api/v1/leaderboards/ latency from a separate load process (16 connections): idle, and
 *     while the computation runs back to back (goal: p99 unaffected, readers never wait on it);
 *  3. the distribution of that month (freeze + exact split + Merkle tree of every recipient).
 * Starts its own Postgres/Redis unless DATABASE_URL/REDIS_URL are set.
 *   npx tsx scripts/bench/leaderboards.ts [users=20000] [articles=50000] [yaps=200000] [votes=1000000] [--keep]
 * (--keep leaves the database in place for EXPLAIN ANALYZE.)
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { createRedis } from '../../src/platform/redis.js';
import { computeMonth, distributeMonth } from '../../src/rewards/service.js';
import type { RunningService } from '../lib/services.js';
import { backingServices } from '../lib/backing-services.js';
import { benchDeps, createBenchDatabase } from './lib/bench-stack.js';
import { loadFromChild, type LoadResult } from './lib/load.js';
import { koaListener } from '../../src/platform/http/listener.js';
import { seedMonthActivity } from './lib/month-seed.js';

const KEEP = process.argv.includes('--keep');
const numbers = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const [USERS, ARTICLES, YAPS, VOTES] = [20_000, 50_000, 200_000, 1_000_000].map((d, i) => Number(numbers[i] ?? d));
const MONTH = '2026-01';
const START = '2026-01-01T00:00:00Z';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-lb-'));
const started: RunningService[] = [];
const log = (l: string) => console.error(`[bench] ${l}`);
const fmt = (r: LoadResult) => `${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (${r.requests} requests, statuses ${JSON.stringify(r.statuses)})`;

async function timed<T>(label: string, fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await fn();
  const ms = performance.now() - t0;
  log(`${label}: ${(ms / 1000).toFixed(2)} s`);
  return [r, ms];
}

try {
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log });
  const dbName = `squid_bench_lb_${process.pid}`;
  const { admin, url: databaseUrl } = await createBenchDatabase(adminUrl, dbName);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    QUEUE_PREFIX: `benchlb${process.pid}`,
    LOG_LEVEL: 'silent',
    ANON_DAILY_QUOTA: '100000000',
  });
  const db = createDb(config.DATABASE_URL, { max: 12 });
  await migrateToLatest(db);

  // ---- data: every row inside January 2026 ----------------------------------------------------
  const [, genMs] = await timed(`generate ${USERS} users, ${ARTICLES} articles, ${YAPS} yaps, ${VOTES} votes`, async () => {
    await sql`
      INSERT INTO users (wallet_address, account_type, roles, username)
      SELECT '0x' || lpad(to_hex(g), 40, '0'),
             (ARRAY['human', 'human', 'human', 'cyborg', 'bot'])[1 + g % 5],
             CASE WHEN g <= 50 THEN ARRAY['editor'] ELSE '{}' END,
             'user_' || g
      FROM generate_series(1, ${USERS}::int) g`.execute(db);
    await seedMonthActivity(db, { start: START, users: USERS, articles: ARTICLES, yaps: YAPS, votes: VOTES });
    // As a live database would be: vacuumed and analysed (so autovacuum does not run during the figures).
    await sql`VACUUM ANALYZE`.execute(db);
  });

  // ---- 1. the computation alone ----------------------------------------------------------------
  const runs: number[] = [];
  let entries = 0;
  for (let i = 0; i < 3; i++) {
    const [r, ms] = await timed(`leaderboard computation run ${i + 1}`, () => computeMonth(db, MONTH));
    runs.push(ms);
    entries = r.entries;
  }

  // ---- 2. GET /leaderboards/ idle, then while the computation runs back to back ---------------
  const redis = createRedis(config.REDIS_URL, 'command', 'bench');
  const deps = benchDeps(config, createDb(config.DATABASE_URL, { max: 10, applicationName: 'bench-web' }), redis, 'silent');
  const server = http.createServer(koaListener(createApp(deps)));
  const base = await new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
  const url = `${base}/api/v1/leaderboards/?month=${MONTH}&limit=10`;
  await loadFromChild(url, 2, 16); // warm-up
  // Baseline on this machine: the liveness route (no database) through the same app.
  const bare = await loadFromChild(`${base}/healthz`, 5, 16);
  const idle = await loadFromChild(url, 8, 16);
  const during: number[] = [];
  const loadSeconds = Math.max(10, Math.ceil((Math.max(...runs) * 2.5) / 1000));
  let stop = false;
  const recompute = (async () => {
    while (!stop) {
      const t0 = performance.now();
      await computeMonth(db, MONTH);
      during.push(performance.now() - t0);
    }
  })();
  const busy = await loadFromChild(url, loadSeconds, 16);
  stop = true;
  await recompute;

  // ---- 3. the distribution of the month --------------------------------------------------------
  const [dist, distMs] = await timed('distribution (freeze + split + Merkle tree + drops)', () => distributeMonth(db, MONTH, new Date('2026-02-01T00:05:00Z')));

  const sizes = await sql<{ t: string; n: number }>`
    SELECT 'votes' AS t, count(*)::int AS n FROM votes UNION ALL SELECT 'yaps', count(*)::int FROM yaps
    UNION ALL SELECT 'articles', count(*)::int FROM articles UNION ALL SELECT 'users', count(*)::int FROM users`.execute(db);
  console.log(`data: ${sizes.rows.map((r) => `${r.n} ${r.t}`).join(', ')} in ${MONTH} (generated in ${(genMs / 1000).toFixed(1)} s)`);
  console.log(`leaderboard computation (one month, all five boards, ${entries} entries): ${runs.map((m) => (m / 1000).toFixed(2) + ' s').join(', ')} (goal < 10 s)`);
  console.log(`GET /healthz (baseline, no database):   ${fmt(bare)}`);
  console.log(`GET /leaderboards/ idle:                 ${fmt(idle)}`);
  console.log(`GET /leaderboards/ during recomputation: ${fmt(busy)}; ${during.length} recomputations ran meanwhile (${during.map((m) => (m / 1000).toFixed(2)).join(', ')} s)`);
  console.log(`distribution: ${(distMs / 1000).toFixed(2)} s for ${dist.recipients} recipients, root ${dist.merkle_root}`);

  server.close();
  await deps.queue.close();
  redis.disconnect();
  await deps.db.destroy();
  await db.destroy();
  if (KEEP) console.log(`kept database ${dbName}`);
  else await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
  await admin.end();
} finally {
  for (const s of started.reverse()) await s.stop();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
