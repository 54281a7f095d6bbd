/**
 * Feed benchmark, on 100,000 seeded approved articles (scripts/bench/seed-feed.ts):
 *  1. Full hot-score recompute of every article (the set-based UPDATE of article_hot_scores run by
 *     jobs/hot-scores.ts, src/articles/hot-score-queries.ts): wall time.
 *     Also a routine scheduled run 5 minutes later (rows whose score barely moved are skipped).
 *  2. GET /api/v1/news/ (hot, first page) and GET /api/v1/news/?token_address=... under load, against a
 *     bare Koa JSON route in the same run: requests per second and p99, 50 keep-alive connections
 *     from a separate load-generator process, 10 s per run, runs alternated, medians of 3. Both as
 *     served (anonymous pages from the 2 s Redis feed cache) and with the cache off (every request
 *     queries Postgres: page + count). Also the server's CPU time per request (this process's
 *     CPU during a run / requests), a ratio that holds even when the load generator is the bottleneck.
 *  3. In the same alternated runs: the hot page for an API-key client (enterprise key
 *     linked to an account: the shared page plus its my_vote overlay) and a signed-in reader (JWT),
 *     a conditional request answered 304 (If-None-Match), and cold pages whose filter combination
 *     no cache has seen (every request a new `since` instant): a selective one (token_symbol=UNI
 *     + since, 1 % of the articles) and a broad one (tag=defi + since, 20 %), at 50 connections and
 *     at 1 connection (the query's own latency). Before the load, EXPLAIN ANALYZE of the filtered
 *     page and count queries (plan root and execution time).
 *  4. The anonymous hot page from the same app without the static-route fast path
 *     (createApp's staticFastPath: false), to show what the fast path is worth; and the anonymous
 *     hot page and its 304 without the memory lane (memoryLane: false, src/platform/http/lane.ts).
 *   SKIP_RECOMPUTE=1 skips part 1 (useful at 1,000,000 articles).
 * The full app is the real createApp() (auth, daily quota in Redis, routing, validation) with
 * LOG_LEVEL=warn. Starts its own Postgres (shared_buffers 512MB: articles and its 12 indexes are
 * ~120 MB, article_hot_scores and its 2 indexes ~35 MB: all stay in memory) and Redis unless
 * DATABASE_URL/REDIS_URL are set.
 *   npx tsx scripts/bench/feed.ts [articles=100000] [seconds=10] [connections=50]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { sql } from 'kysely';
import pg from 'pg';
import { createApp } from '../../src/app.js';
import { signAccessToken } from '../../src/identity/tokens.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { defineRoute } from '../../src/platform/http/route.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { recomputeHotScores } from '../../src/articles/hot-score-queries.js';
import { feedRoutes } from '../../src/feed/routes.js';
import { allRoutes } from '../../src/routes.js';
import { createRedis } from '../../src/platform/redis.js';
import type { RunningService } from '../lib/services.js';
import { backingServices } from '../lib/backing-services.js';
import { bareApp, benchDeps, benchLog, listenLocal } from './lib/bench-stack.js';
import { loadFromChild, type LoadResult } from './lib/load.js';
import { BENCH_TOKEN, seedFeed } from './seed-feed.js';

const N = Number(process.argv[2] ?? 100_000);
const SECONDS = Number(process.argv[3] ?? 10);
const CONNECTIONS = Number(process.argv[4] ?? 50);
const RUNS = 3;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-feed-'));
const started: RunningService[] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  // An already seeded database (e.g. 1,000,000 articles seeded once): no create, seed or drop.
  const seededUrl = process.env.SEEDED_DATABASE_URL;
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log: benchLog, pgSettings: { shared_buffers: '512MB' }, databaseUrl: seededUrl });
  const dbName = `squid_bench_feed_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on('error', () => undefined);
  await admin.connect();
  if (!seededUrl) await admin.query(`CREATE DATABASE ${dbName}`);
  const u = new URL(adminUrl);
  if (!seededUrl) u.pathname = `/${dbName}`;
  const config = loadConfig({
    DATABASE_URL: u.toString(),
    REDIS_URL: redisUrl,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    QUEUE_PREFIX: `benchfeed${process.pid}`,
    LOG_LEVEL: 'warn',
    ANON_DAILY_QUOTA: '1000000000',
    SESSION_DAILY_QUOTA: '1000000000',
    NODE_ENV: 'production',
  });
  const db = createDb(config.DATABASE_URL, { max: config.DB_POOL_MAX });
  await migrateToLatest(db);

  const seeded = seededUrl ? { articles: N, yaps: 0, ms: 0 } : await seedFeed(db, N);
  if (!seededUrl) console.log(`seed: ${seeded.articles} approved articles, ${seeded.yaps} tldr yaps in ${(seeded.ms / 1000).toFixed(1)} s (generate_series)`);

  // 1. Full recompute.
  const times: number[] = [];
  for (let i = 0; i < (process.env.SKIP_RECOMPUTE ? 0 : 3); i++) {
    // As autovacuum would between scheduled runs; not timed.
    if (i > 0) await sql`VACUUM article_hot_scores`.execute(db);
    const t0 = performance.now();
    const updated = await recomputeHotScores(db, { windowHours: 168, all: true });
    times.push(performance.now() - t0);
    if (updated !== N) throw new Error(`recompute updated ${updated} rows, expected ${N}`);
  }
  if (process.env.SKIP_RECOMPUTE) {
    // A seeded database was ranked when it was seeded.
    if (!seededUrl) await recomputeHotScores(db, { windowHours: 168, all: true });
  } else
    console.log(
      `hot-score full recompute of ${N} articles (every row rewritten, VACUUM between runs): ${times.map((t) => `${(t / 1000).toFixed(2)} s`).join(', ')} (3 runs; goal < 2 s)`,
    );
  if (!process.env.SKIP_RECOMPUTE) {
    const t0 = performance.now();
    const updated = await recomputeHotScores(db, { windowHours: config.HOT_SCORE_WINDOW_HOURS, now: new Date(Date.now() + 5 * 60_000) });
    console.log(`hot-score routine run 5 min later (${config.HOT_SCORE_WINDOW_HOURS} h window): ${updated} rows rewritten in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  }
  {
    const t0 = performance.now();
    await sql`SELECT count(*) FROM generate_series(1, 10000000)`.execute(db);
    console.log(`calibration: SELECT count(*) FROM generate_series(1, 1e7) takes ${((performance.now() - t0) / 1000).toFixed(2)} s on this Postgres`);
  }
  await sql`VACUUM ANALYZE articles`.execute(db);
  await sql`VACUUM ANALYZE article_hot_scores`.execute(db);

  // Query plans of filtered pages and counts, as the feed runs them.
  {
    const { feedCount, feedPage } = await import('../../src/articles/queries.js');
    const since = new Date(Date.now() - 3 * 86_400_000);
    const cases: [string, Parameters<typeof feedCount>[1], 'hot' | 'new' | 'top'][] = [
      ['token_symbol=UNI since=3d, hot', { status: 'approved', tokenSymbols: ['UNI'], since }, 'hot'],
      ['tag=defi since=3d, hot', { status: 'approved', tags: ['defi'], since }, 'hot'],
      ['tag=defi source=coindesk.com, new', { status: 'approved', tags: ['defi'], source: 'coindesk.com' }, 'new'],
      ['top t=day', { status: 'approved', window: 'day' }, 'top'],
      ['top t=week tag=security', { status: 'approved', window: 'week', tags: ['security'] }, 'top'],
      ['tag=defi, hot', { status: 'approved', tags: ['defi'] }, 'hot'],
    ];
    // The feed's own queries, captured through a logging Kysely on the same database, then EXPLAIN ANALYZEd.
    const { Kysely, PostgresDialect } = await import('kysely');
    const captured: { sql: string; parameters: readonly unknown[] }[] = [];
    const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: 1 });
    const logged = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: (e) => void captured.push({ sql: e.query.sql, parameters: e.query.parameters }) }) as typeof db;
    const explain = async (q: { sql: string; parameters: readonly unknown[] }) => {
      const r = await pool.query(`EXPLAIN (ANALYZE, TIMING OFF) ${q.sql}`, q.parameters as unknown[]);
      const lines = r.rows.map((x: { 'QUERY PLAN': string }) => x['QUERY PLAN']);
      const idx = [...new Set(lines.join('\n').match(/\b(?:articles|article_hot_scores|yaps)_[a-z0-9_]+?_(?:idx|pkey|key)\b/g) ?? [])];
      return `${lines.find((l: string) => l.startsWith('Execution Time'))?.replace('Execution Time: ', '')} via ${idx.join(', ') || 'no index (seq scan)'}`;
    };
    for (const [label, f, sort] of cases) {
      captured.length = 0;
      await feedPage(logged, { ...f, sort, page: 1, perPage: 20 });
      const n = await feedCount(logged, f);
      const [pageQ, countQ] = captured;
      console.log(`plan ${label.padEnd(36)} page: ${await explain(pageQ)}; count (${n}): ${await explain(countQ)}`);
    }
    await logged.destroy();
  }

  // 2. Load.
  const redis = createRedis(config.REDIS_URL, 'command', 'bench', { autoPipelining: true }); // as src/bin/web.ts
  const deps = benchDeps(config, db, redis, config.LOG_LEVEL);
  // The full app with one trivial extra route: the floor every route of the app shares (headers, metrics, quota...).
  const ping = defineRoute({
    method: 'get',
    path: '/bench/ping',
    operationId: 'benchPing',
    summary: 'bench',
    tags: ['bench'],
    responses: { 200: { description: 'ok' } },
    handler(ctx) {
      ctx.body = { ok: true };
    },
  });
  const full = createApp(deps, [...allRoutes(deps), ping]);
  // The same app with the feed cache off: every request queries Postgres for the page and the count.
  const uncachedRoutes = allRoutes(deps).map((r) =>
    r.operationId === 'listArticles' ? feedRoutes(deps, { feedCacheTtlMs: 0 }).find((x) => x.operationId === 'listArticles')! : r,
  );
  const uncached = createApp(deps, uncachedRoutes);
  // The same app without the static-route fast path: what the fast path is worth.
  const noFastPath = createApp(deps, [...allRoutes(deps), ping], { staticFastPath: false });
  // The same app without the memory lane (src/platform/http/lane.ts): anonymous pages through the middleware chain.
  const noLane = createApp(deps, [...allRoutes(deps), ping], { memoryLane: false });
  const bare = bareApp(deps.log);
  const listen = async (app: Koa) => (await listenLocal(app, { keepAliveTimeoutMs: 30_000 })).origin;
  const fullUrl = await listen(full);
  const bareUrl = await listen(bare);
  const uncachedUrl = await listen(uncached);
  const noFastPathUrl = await listen(noFastPath);
  const noLaneUrl = await listen(noLane);
  // A `since` instant no cache has seen on every request ({n}: a new 9-digit fraction of a second).
  const coldSince = `${new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 19)}.{n}Z`;
  const targets = {
    bare: `${bareUrl}/api/v1/bench/ping`,
    appFloor: `${fullUrl}/api/v1/bench/ping`,
    hot: `${fullUrl}/api/v1/news/`,
    hotNoFastPath: `${noFastPathUrl}/api/v1/news/`,
    hotNoLane: `${noLaneUrl}/api/v1/news/`,
    hot304NoLane: `${noLaneUrl}/api/v1/news/`,
    hotApiKey: `${fullUrl}/api/v1/news/`,
    hotSignedIn: `${fullUrl}/api/v1/news/`,
    hot304: `${fullUrl}/api/v1/news/`,
    token: `${fullUrl}/api/v1/news/?token_address=${BENCH_TOKEN}`,
    coldSelective: `${fullUrl}/api/v1/news/?token_symbol=UNI&since=${coldSince}`,
    coldBroad: `${fullUrl}/api/v1/news/?tag=defi&since=${coldSince}`,
    coldSelective1: `${fullUrl}/api/v1/news/?token_symbol=uni&since=${coldSince}`,
    coldBroad1: `${fullUrl}/api/v1/news/?tag=DEFI&since=${coldSince}`,
    hotNoCache: `${uncachedUrl}/api/v1/news/`,
    tokenNoCache: `${uncachedUrl}/api/v1/news/?token_address=${BENCH_TOKEN}`,
  };
  /** Connections per target: the *1 cold targets run one at a time (the query's own latency). */
  const connectionsOf = (k: string) => (k.endsWith('1') ? 1 : CONNECTIONS);
  const sample = JSON.parse(await (await fetch(targets.hot)).text());
  const sampleToken = JSON.parse(await (await fetch(targets.token)).text());
  console.log(
    `hot page: count ${sample.count}, ${sample.results.length} items, ${sample.results.filter((a: { top_tldr: unknown }) => a.top_tldr).length} with top_tldr; token filter: count ${sampleToken.count}`,
  );

  // Signed-in readers and API-key clients are served the shared cached page plus their
  // my_vote overlay (one primary-key lookup per user and page version, kept in the process). The
  // reader has votes on the hot page, so the overlay is not empty.
  const reader = await db
    .insertInto('users')
    .values({ wallet_address: '0x' + 'b'.repeat(40) })
    .returning('id')
    .executeTakeFirstOrThrow();
  const token = await signAccessToken(config.JWT_SECRET, { userId: reader.id, address: '0x' + 'b'.repeat(40), roles: [] });
  const hotIds = (sample.results as { id: number }[]).slice(0, 5).map((a) => a.id);
  await db
    .insertInto('votes')
    .values(hotIds.map((id) => ({ article_id: id, user_id: reader.id, weight: 1 })))
    .execute();
  const { generateApiKey, generateKeyId } = await import('../../src/identity/api-keys.js');
  const { insertApiKey } = await import('../../src/identity/api-key-queries.js');
  const apiKey = generateApiKey();
  await insertApiKey(db, { id: generateKeyId(), ...apiKey, name: 'bench', email: null, useCase: null, userId: reader.id, tier: 'enterprise' });
  const etag = (await fetch(targets.hot)).headers.get('etag')!;
  const headersOf = (k: string): Record<string, string> =>
    k === 'hotSignedIn'
      ? { authorization: `Bearer ${token}` }
      : k === 'hotApiKey'
        ? { authorization: `Bearer ${apiKey.raw}` }
        : k.startsWith('hot304')
          ? { 'if-none-match': etag }
          : {};
  const expected = (k: string) => (k.startsWith('hot304') ? '304' : '200');
  const signedInSample = JSON.parse(await (await fetch(targets.hotSignedIn, { headers: headersOf('hotSignedIn') })).text());
  console.log(`signed-in hot page: my_vote on ${signedInSample.results.filter((a: { my_vote: number }) => a.my_vote === 1).length} of ${signedInSample.results.length} items`);
  // BENCH_TARGETS=bare,coldSelective1,...: load only these targets (the others print as skipped).
  const only = process.env.BENCH_TARGETS?.split(',');
  if (only) for (const k of Object.keys(targets)) if (k !== 'bare' && !only.includes(k)) delete (targets as Record<string, string>)[k];
  for (const [name, url] of Object.entries(targets)) await loadFromChild(url, 2, connectionsOf(name), headersOf(name)); // warm-up
  const results = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as LoadResult[]])) as Record<keyof typeof targets, LoadResult[]>;
  const cpuPerRequest = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as number[]])) as Record<keyof typeof targets, number[]>;
  for (let i = 0; i < RUNS; i++) {
    for (const [name, url] of Object.entries(targets) as [keyof typeof targets, string][]) {
      // The servers run in this process and the load generator in its own: this process's CPU time
      // per request is the server's cost, whether or not the generator was the bottleneck.
      const cpu0 = process.cpuUsage();
      const r = await loadFromChild(url, SECONDS, connectionsOf(name), headersOf(name));
      const cpu = process.cpuUsage(cpu0);
      if (r.errors || (r.statuses[expected(name)] ?? 0) !== r.requests) throw new Error(`${name}: ${JSON.stringify(r.statuses)} errors ${r.errors}`);
      results[name].push(r);
      cpuPerRequest[name].push((cpu.user + cpu.system) / r.requests);
    }
  }
  const rps = (k: keyof typeof targets) => median(results[k].map((r) => r.rps));
  const p99 = (k: keyof typeof targets) => median(results[k].map((r) => r.p99));
  const cpuUs = (k: keyof typeof targets) => median(cpuPerRequest[k]);
  const line = (label: string, k: keyof typeof targets) =>
    !results[k]?.length
      ? `${label.padEnd(34)} (skipped)`
      : `${label.padEnd(34)} ${rps(k).toFixed(0).padStart(6)} req/s  p99 ${p99(k).toFixed(1).padStart(6)} ms  server ${cpuUs(k).toFixed(0).padStart(5)} us CPU/req` +
        (k === 'bare'
          ? ''
          : `   ratio vs bare: ${(rps(k) / rps('bare')).toFixed(2)}x req/s, ${(p99(k) / p99('bare')).toFixed(1)}x p99, ${(cpuUs('bare') / cpuUs(k)).toFixed(2)}x CPU cost`);
  console.log(
    `load: ${CONNECTIONS} keep-alive connections, ${SECONDS} s per run, median of ${RUNS} alternated runs, ${os.cpus().length} CPUs shared by server, load generator, Postgres and Redis`,
  );
  console.log(
    '(CPU cost ratio = bare CPU per request / this CPU per request: the req/s ratio the server alone would allow if it were the only bottleneck; Postgres and Redis CPU not included)',
  );
  console.log(line('bare Koa JSON route', 'bare'));
  console.log(line('full app, trivial JSON route', 'appFloor'));
  console.log(line('GET /news/ (hot, page 1)', 'hot'));
  console.log(line('  hot, without the static fast path', 'hotNoFastPath'));
  console.log(line('  hot, without the memory lane', 'hotNoLane'));
  console.log(line('  hot, API key (+ my_vote)', 'hotApiKey'));
  console.log(line('  hot, signed in (+ my_vote)', 'hotSignedIn'));
  console.log(line('  hot, If-None-Match -> 304', 'hot304'));
  console.log(line('  304, without the memory lane', 'hot304NoLane'));
  console.log(line('GET /news/?token_address=', 'token'));
  console.log(line('cold: token_symbol+since (1%)', 'coldSelective'));
  console.log(line('cold: tag+since (20%)', 'coldBroad'));
  console.log(line('cold: token_symbol+since, 1 conn', 'coldSelective1'));
  console.log(line('cold: tag+since, 1 conn', 'coldBroad1'));
  console.log(line('  hot, feed cache off', 'hotNoCache'));
  console.log(line('  token, feed cache off', 'tokenNoCache'));
  if (!only)
    console.log(
      `goals: hot anonymous / API key / signed in >= 0.5x bare: ${(['hot', 'hotApiKey', 'hotSignedIn'] as const).map((k) => (rps(k) / rps('bare')).toFixed(2) + 'x').join(' / ')}; 304 >= 0.7x: ${(rps('hot304') / rps('bare')).toFixed(2)}x; cold p99 <= 20 ms: ${p99('coldSelective').toFixed(1)} / ${p99('coldBroad').toFixed(1)} ms at ${CONNECTIONS} connections, ${p99('coldSelective1').toFixed(1)} / ${p99('coldBroad1').toFixed(1)} ms at 1`,
    );

  await deps.queue.close();
  redis.disconnect();
  await db.destroy();
  if (!seededUrl) await admin.query(`DROP DATABASE ${dbName} WITH (FORCE)`);
  await admin.end();
} catch (err) {
  console.error('[bench] failed:', err);
  process.exitCode = 1;
} finally {
  for (const s of started.reverse()) await s.stop();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);
