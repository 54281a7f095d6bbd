/**
 * Retention benchmark: the wire-prune job deletes 1,000,000 expired wire items (each
 * with a receipt, so 2,000,000 rows go, and 1,000,000 tombstones are written) while the feed is
 * under load, compared with the same load without the job, in the same run.
 *
 * Setup: N approved articles (scripts/bench/seed-feed.ts) and E expired wire items + receipts plus
 * 50,000 recent ones (kept), inserted with generate_series; VACUUM ANALYZE.
 * Load: GET /api/v1/news/ with the feed cache off (every request queries PostgreSQL), keep-alive
 * connections from a separate load-generator process, in windows of W seconds. 3 windows before
 * the job (baseline), then windows while the job runs (the job itself, exactly as the worker runs
 * it: jobs/wire-prune.ts with RETENTION_BATCH and RETENTION_PAUSE_MS), then 3 windows after.
 * Reports per-window p99 and the medians: without the job (before and after) vs during the job.
 *   npm run bench:retention -- [expired=1000000] [articles=20000] [window_s=5] [connections=16]
 */
import os from 'node:os';
import { sql } from 'kysely';
import { job as wirePrune } from '../../jobs/wire-prune.js';
import { createApp } from '../../src/app.js';
import { feedRoutes } from '../../src/feed/routes.js';
import { allRoutes } from '../../src/routes.js';
import { loadFromChild, type LoadResult } from './lib/load.js';
import { benchStack, runOnStack, listenLocal, median } from './lib/bench-stack.js';
import { seedFeed } from './seed-feed.js';

const EXPIRED = Number(process.argv[2] ?? 1_000_000);
const ARTICLES = Number(process.argv[3] ?? 20_000);
const WINDOW_S = Number(process.argv[4] ?? 5);
const CONNECTIONS = Number(process.argv[5] ?? 16);

const stack = await benchStack('retention', {}, { sharedBuffers: '512MB' });
await runOnStack(stack, async ({ deps, db, config }) => {
  let t0 = performance.now();
  await seedFeed(db, ARTICLES);
  await sql`INSERT INTO wire_sources (name, url) VALUES ('bench wire', 'https://wire.example/feed.xml')`.execute(db);
  const src = (await sql<{ id: number }>`SELECT id FROM wire_sources`.execute(db)).rows[0].id;
  const CHUNK = 250_000;
  for (let from = 1; from <= EXPIRED; from += CHUNK) {
    const to = Math.min(EXPIRED, from + CHUNK - 1);
    await sql`
      INSERT INTO wire_items (normalized_url, url, title, source_id, source_name, source_url, ingested_at, scored_at, score, novelty)
      SELECT 'https://wire.example/old/' || g, 'https://wire.example/old/' || g, 'Old wire story ' || g, ${src}, 'bench wire', 'https://wire.example/feed.xml',
             now() - interval '31 days' - g * interval '2 seconds', now() - interval '31 days', 0.1, 0.1
      FROM generate_series(${from}::int, ${to}::int) g`.execute(db);
  }
  await sql`
    INSERT INTO wire_items (normalized_url, url, title, source_id, source_name, source_url, ingested_at)
    SELECT 'https://wire.example/new/' || g, 'https://wire.example/new/' || g, 'New wire story ' || g, ${src}, 'bench wire', 'https://wire.example/feed.xml', now() - g * interval '40 seconds'
    FROM generate_series(1, 50000) g`.execute(db);
  await sql`
    INSERT INTO wire_receipts (wire_item_id, source_id, source_name, source_url, item_url, ingested_at)
    SELECT id, source_id, source_name, source_url, url, ingested_at FROM wire_items`.execute(db);
  for (const t of ['articles', 'article_hot_scores', 'wire_items', 'wire_receipts', 'wire_item_tombstones']) await sql`VACUUM ANALYZE ${sql.table(t)}`.execute(db);
  console.log(`seed: ${ARTICLES} articles, ${EXPIRED} expired + 50000 recent wire items, one receipt each, in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const uncachedRoutes = allRoutes(deps).map((r) =>
    r.operationId === 'listArticles' ? feedRoutes(deps, { feedCacheTtlMs: 0 }).find((x) => x.operationId === 'listArticles')! : r,
  );
  const app = createApp(deps, uncachedRoutes);
  const url = `${(await listenLocal(app, { keepAliveTimeoutMs: 30_000 })).origin}/api/v1/news/`;
  await loadFromChild(url, 8, CONNECTIONS); // warm-up
  const window = async (label: string): Promise<LoadResult> => {
    const r = await loadFromChild(url, WINDOW_S, CONNECTIONS);
    if (r.errors || (r.statuses['200'] ?? 0) !== r.requests) throw new Error(`${label}: ${JSON.stringify(r.statuses)} errors ${r.errors}`);
    console.log(`  ${label.padEnd(14)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99.toFixed(1).padStart(6)} ms`);
    return r;
  };
  console.log(
    `feed load: GET /api/v1/news/ (feed cache off), ${CONNECTIONS} keep-alive connections, ${WINDOW_S} s windows, ${os.cpus().length} CPUs shared by server, load generator, job and Postgres`,
  );
  const before: LoadResult[] = [];
  for (let i = 0; i < 3; i++) before.push(await window(`baseline ${i + 1}`));

  // The job, as the worker runs it (its own pool, like a worker process).
  const jobDb = (await import('../../src/platform/db.js')).createDb(config.DATABASE_URL, { max: 2, applicationName: 'bench-wire-prune' });
  t0 = performance.now();
  let jobDone = false;
  const jobRun = wirePrune
    .run({}, { config, db: jobDb, redis: deps.redis, events: deps.events, log: deps.log, enqueue: async () => 'x' }, { attempt: 1, jobId: 'bench' })
    .finally(() => (jobDone = true));
  const during: LoadResult[] = [];
  while (!jobDone) during.push(await window(`with job ${during.length + 1}`));
  const result = await jobRun;
  const jobS = (performance.now() - t0) / 1000;
  await jobDb.destroy();
  const after: LoadResult[] = [];
  for (let i = 0; i < 3; i++) after.push(await window(`after ${i + 1}`));

  const left = (
    await sql<{ old: number; recent: number; receipts: number; tombs: number }>`
    SELECT (SELECT count(*) FROM wire_items WHERE ingested_at < now() - interval '30 days')::int AS old,
           (SELECT count(*) FROM wire_items)::int AS recent,
           (SELECT count(*) FROM wire_receipts)::int AS receipts,
           (SELECT count(*) FROM wire_item_tombstones)::int AS tombs`.execute(db)
  ).rows[0];
  if (result.items.deleted !== EXPIRED || left.old !== 0 || left.recent !== 50000) throw new Error(`job result ${JSON.stringify(result)}, left ${JSON.stringify(left)}`);
  console.log(
    `wire-prune: deleted ${result.items.deleted} expired wire items (+ ${result.items.deleted} receipts, ${left.tombs} tombstones written) in ${result.items.batches} transactions of ${config.RETENTION_BATCH}, ` +
      `${jobS.toFixed(1)} s (${(result.items.deleted / jobS).toFixed(0)} items/s); 50000 recent items and their receipts kept`,
  );
  const p99 = (xs: LoadResult[]) => median(xs.map((r) => r.p99));
  const rps = (xs: LoadResult[]) => median(xs.map((r) => r.rps));
  const base = [...before, ...after];
  console.log(
    `feed p99 without the job: ${p99(base).toFixed(1)} ms (median of ${base.length} windows, before and after); with the job: ${p99(during).toFixed(1)} ms (median of ${during.length}, worst ${Math.max(...during.map((r) => r.p99)).toFixed(1)} ms); ratio ${(p99(during) / p99(base)).toFixed(2)}x`,
  );
  console.log(`feed req/s without the job: ${rps(base).toFixed(0)}, with the job: ${rps(during).toFixed(0)} (${(rps(during) / rps(base)).toFixed(2)}x)`);
});
