/**
 * Rewards drill: a month of honest activity and four attacks at once (scripts/drills/lib/), written
 * into a real, migrated database, then scored twice by the real code:
 *  - naive counting: the leaderboards job's computation before any credibility run (the boards as
 *    they count without credibility);
 *  - the credibility rules: the credibility-recompute job (weights, flags, then the month's boards),
 *    then the monthly-distribution job (freeze, exact split, drops), whose drops give the shares.
 * Prints, per seed, each group's share of the pool under both, how many honest accounts were
 * flagged and the Spearman rank correlation of the honest accounts' credited shares with their naive
 * order. Goal: attackers together under 2% of the pool, no honest account flagged, Spearman >= 0.9.
 * Exits 1 when a seed misses the goal.
 *
 *   npm run drill:rewards -- [--seeds 1,2,3] [--honest 300]
 * Starts its own PostgreSQL and Redis unless DATABASE_URL / REDIS_URL are set (one database per seed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { job as recomputeJob } from '../../jobs/credibility-recompute.js';
import { job as distributionJob } from '../../jobs/monthly-distribution.js';
import { addMonths, monthOf } from '../../src/rewards/index.js';
import { monthBounds } from '../../src/credibility/rules/month.js';
import { runLeaderboards } from '../../src/rewards/service.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { createRedis } from '../../src/platform/redis.js';
import { backingServices } from '../lib/backing-services.js';
import type { RunningService } from '../lib/services.js';
import { benchDeps, createBenchDatabase } from '../bench/lib/bench-stack.js';
import { byGroup, printSeed, spearman, type SeedResult } from './lib/rewards-report.js';
import { simulateMonth } from './lib/rewards-simulate.js';
import { storeMonth } from './lib/rewards-store.js';

const SECRET = 'drill-rewards-secret-drill-rewards-secret-0123';
const log = (l: string) => console.error(`[drill] ${l}`);

/** Each user's share of the pool (0..1) from the month's board entries: 25% per category. */
async function naiveShares(db: Db, month: string): Promise<Map<number, number>> {
  const r = await sql<{ user_id: number; share: number }>`
    SELECT user_id, sum(market_share / 100.0 * 0.25)::float8 AS share FROM leaderboard_entries
    WHERE month = ${month} AND board <> 'engagement' GROUP BY user_id`.execute(db);
  return new Map(r.rows.map((x) => [x.user_id, x.share]));
}

/** Each user's share of the distributed pool (0..1) from the month's drops. */
async function dropShares(db: Db, month: string): Promise<Map<number, number>> {
  const r = await sql<{ user_id: number; share: number }>`
    SELECT user_id, (sum(amount) / 1e24)::float8 AS share FROM reward_drops WHERE month = ${month} GROUP BY user_id`.execute(db);
  return new Map(r.rows.map((x) => [x.user_id, x.share]));
}

async function runSeed(seed: number, honest: number, adminUrl: string, redisUrl: string): Promise<SeedResult> {
  const t0 = performance.now();
  const month = addMonths(monthOf(new Date()), -1);
  const { start, end } = monthBounds(month);
  const sim = simulateMonth(seed, start, end, honest);
  const { admin, url } = await createBenchDatabase(adminUrl, `squid_drill_rewards_${process.pid}_${seed}`);
  const config = loadConfig({ DATABASE_URL: url, REDIS_URL: redisUrl, JWT_SECRET: SECRET, QUEUE_PREFIX: `drillrw${process.pid}`, LOG_LEVEL: 'silent' });
  const db = createDb(url, { max: 4 });
  const redis = createRedis(redisUrl, 'command', 'drill');
  try {
    await migrateToLatest(db);
    const t1 = performance.now();
    await storeMonth(db, sim, SECRET);
    const storeMs = Math.round(performance.now() - t1);
    await runLeaderboards(db, { month });
    const naive = await naiveShares(db, month);
    const deps = { ...benchDeps(config, db, redis, 'silent'), enqueue: async () => '' };
    const t2 = performance.now();
    await recomputeJob.run({ month }, deps, { attempt: 1, jobId: 'drill' });
    const recomputeMs = Math.round(performance.now() - t2);
    await distributionJob.run({ month }, deps, { attempt: 1, jobId: 'drill' });
    const credited = await dropShares(db, month);
    const flags = await db.selectFrom('credibility_flags').select(['kind', 'members']).where('month', '=', month).execute();
    const honestIds = new Set(sim.users.filter((u) => u.group === 'honest').map((u) => u.id));
    const flaggedHonest = [...new Set(flags.flatMap((f) => f.members.filter((m) => honestIds.has(m))))].sort((a, b) => a - b);
    const ranked = [...honestIds].filter((id) => (naive.get(id) ?? 0) > 0);
    const naiveG = byGroup(sim.users, naive);
    const creditedG = byGroup(sim.users, credited);
    const flagCounts: Record<string, number> = {};
    for (const f of flags) {
      const honestIn = f.members.filter((m) => honestIds.has(m)).length;
      flagCounts[f.kind] = (flagCounts[f.kind] ?? 0) + 1;
      if (honestIn) flagCounts[`${f.kind}_with_honest`] = (flagCounts[`${f.kind}_with_honest`] ?? 0) + 1;
    }
    return {
      seed,
      naive: naiveG,
      credited: creditedG,
      attackersNaive: 1 - naiveG.honest,
      attackersCredited: 1 - creditedG.honest,
      honestFlagged: flaggedHonest.length,
      honestFlaggedIds: flaggedHonest,
      spearman: spearman(
        ranked.map((id) => naive.get(id)!),
        ranked.map((id) => credited.get(id) ?? 0),
      ),
      flags: flagCounts,
      counts: { users: sim.users.length, articles: sim.articles.length, yaps: sim.yaps.length, votes: sim.votes.length },
      ms: { store: storeMs, recompute: recomputeMs, total: Math.round(performance.now() - t0) },
    };
  } finally {
    await db.destroy();
    redis.disconnect();
    await admin.query(`DROP DATABASE IF EXISTS squid_drill_rewards_${process.pid}_${seed}`);
    await admin.end();
  }
}

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '1' }, honest: { type: 'string', default: '300' } } });
const seeds = values.seeds.split(',').map(Number);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-drill-rewards-'));
const started: RunningService[] = [];
let failed = false;
try {
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log });
  for (const seed of seeds) {
    const r = await runSeed(seed, Number(values.honest), adminUrl, redisUrl);
    printSeed(r, (l) => console.log(l));
    const ok = r.attackersCredited < 0.02 && r.honestFlagged === 0 && r.spearman >= 0.9;
    console.log(`  goal (attackers < 2%, no honest account flagged, Spearman >= 0.9): ${ok ? 'met' : 'MISSED'}`);
    failed ||= !ok;
  }
} finally {
  for (const s of started.reverse()) await s.stop();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
