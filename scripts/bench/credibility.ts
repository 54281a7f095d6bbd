/**
 * Credibility recompute at scale: one month with `votes` votes (four in five on articles, one in five
 * on yaps) by `users` accounts, each with sign-in fingerprints, click-throughs on half the article
 * votes, generated with generate_series. Measures the full recompute of the month's weights and
 * flags (`recomputeMonth`, what the nightly job and the distribution run; goal: under 60 s for
 * 1,000,000 votes and 50,000 accounts on one worker) against, in the same run, the leaderboard
 * computation of the same month (`computeMonth`) and the read of the month's votes alone. Three runs
 * each, medians; the recompute's CPU time in this process (process.cpuUsage, less sensitive to a
 * loaded machine than wall time), its phases and the load average before and after. The first
 * recompute writes every weight; the next ones find the previous run's weights in place, as a
 * nightly run does.
 * Then the per-vote update and the vote endpoint with and without it (lib/credibility-incremental.ts).
 *   npm run bench:credibility -- [users=50000] [votes=1000000] [--only=incremental]
 * `--only=incremental` runs one recompute (so the month has its flags) and the per-vote figures only.
 */
import os from 'node:os';
import { sql } from 'kysely';
import { recomputeMonth } from '../../src/credibility/index.js';
import { monthVotes } from '../../src/credibility/queries.js';
import { computeMonth } from '../../src/rewards/service.js';
import { benchLog, benchStack, median } from './lib/bench-stack.js';
import { endpointLatency, updateTimes } from './lib/credibility-incremental.js';
import { SECONDS_IN_MONTH, seedMonthActivity } from './lib/month-seed.js';

const ONLY_INCREMENTAL = process.argv.includes('--only=incremental');
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const [USERS, VOTES] = [50_000, 1_000_000].map((d, i) => Number(positional[i] ?? d));
const ARTICLES = Math.round(VOTES / 50);
const YAPS = Math.round(VOTES / 10);
const MONTH = '2026-01';
const START = '2026-01-01T00:00:00Z';

async function seed(db: Parameters<typeof computeMonth>[0]) {
  await sql`
    INSERT INTO users (wallet_address, account_type, roles, created_at)
    SELECT '0x' || lpad(to_hex(g), 40, '0'), (ARRAY['human', 'human', 'human', 'cyborg', 'bot'])[1 + g % 5],
           CASE WHEN g <= 50 THEN ARRAY['editor'] ELSE '{}' END,
           '2025-06-01'::timestamptz + make_interval(secs => (g * 97) % (200 * 86400))
    FROM generate_series(1, ${USERS}::int) g`.execute(db);
  await sql`
    INSERT INTO sign_in_fingerprints (user_id, at, ip_hash, ua_hash)
    SELECT 1 + g % ${USERS}::int, ${START}::timestamptz + make_interval(secs => (g * 11) % ${SECONDS_IN_MONTH}::int),
           md5('ip' || (g * 7919) % (${USERS}::int * 2)), md5('ua' || g % 400)
    FROM generate_series(0, ${USERS}::int * 2 - 1) g`.execute(db);
  await seedMonthActivity(db, { start: START, users: USERS, articles: ARTICLES, yaps: YAPS, votes: Math.round(VOTES * 0.8) });
  await sql`INSERT INTO article_readers (article_id, user_id) SELECT article_id, user_id FROM votes WHERE (article_id + user_id) % 2 = 0 ON CONFLICT DO NOTHING`.execute(db);
  await sql`
    INSERT INTO yap_votes (yap_id, user_id, weight, created_at)
    SELECT 1 + g % ${YAPS}::int, 1 + ((g % ${YAPS}::int) * 17 + (g / ${YAPS}::int) * 1009) % ${USERS}::int,
           CASE WHEN g % 5 = 0 THEN -1 ELSE 1 END, ${START}::timestamptz + make_interval(secs => (g * 5) % ${SECONDS_IN_MONTH}::int)
    FROM generate_series(0, ${VOTES - Math.round(VOTES * 0.8)}::int - 1) g ON CONFLICT DO NOTHING`.execute(db);
  await sql`VACUUM ANALYZE`.execute(db);
}

async function timed(runs: number, fn: () => Promise<unknown>, cpu: number[] = []): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return ms;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

const stack = await benchStack('credibility', { LOG_LEVEL: 'silent' }, { sharedBuffers: '256MB' });
try {
  const t0 = performance.now();
  await seed(stack.db);
  const counts = await sql<{ votes: number; yap_votes: number; readers: number }>`
    SELECT (SELECT count(*)::int FROM votes) AS votes, (SELECT count(*)::int FROM yap_votes) AS yap_votes, (SELECT count(*)::int FROM article_readers) AS readers`.execute(
    stack.db,
  );
  const c = counts.rows[0];
  benchLog(`seeded ${USERS} accounts, ${c.votes} article votes, ${c.yap_votes} yap votes, ${c.readers} click-throughs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const loadBefore = load();
  const end = new Date('2026-02-01T00:00:00Z');
  const RUNS = ONLY_INCREMENTAL ? 1 : 3;
  const read = ONLY_INCREMENTAL ? [] : await timed(RUNS, () => monthVotes(stack.db, new Date(START), end));
  const boards = ONLY_INCREMENTAL ? [] : await timed(RUNS, () => computeMonth(stack.db, MONTH));
  const runs: Awaited<ReturnType<typeof recomputeMonth>>[] = [];
  const cpu: number[] = [];
  const recompute = await timed(RUNS, async () => runs.push(await recomputeMonth(stack.db, MONTH, { now: new Date('2026-02-01T00:01:00Z') })), cpu);
  const incremental = [...(await updateTimes(stack, MONTH)), ...(await endpointLatency(stack))];
  const last = runs[runs.length - 1];
  const rss = process.memoryUsage().rss / 2 ** 20;
  const s = (xs: number[]) => `${(median(xs) / 1000).toFixed(2)} s (runs ${xs.map((x) => (x / 1000).toFixed(2)).join(', ')})`;
  console.log(`${USERS} accounts, ${c.votes + c.yap_votes} votes (${c.votes} on articles, ${c.yap_votes} on yaps), month ${MONTH}; medians of 3 runs`);
  if (!ONLY_INCREMENTAL) {
    console.log(`read of the month's votes (baseline)      ${s(read)}`);
    console.log(`leaderboard computation (baseline)         ${s(boards)}`);
  }
  console.log(
    `full credibility recompute                 ${s(recompute)}  goal < 60 s${ONLY_INCREMENTAL ? '' : `; ${(median(recompute) / median(boards)).toFixed(2)}x the leaderboards`}`,
  );
  console.log(
    `recompute CPU time of this process         ${(median(cpu) / 1000).toFixed(2)} s (runs ${cpu.map((x) => (x / 1000).toFixed(2)).join(', ')}); PostgreSQL's own CPU not included`,
  );
  for (const [i, r] of runs.entries()) console.log(`  run ${i + 1} phases (wall ms): ${JSON.stringify(r.phases)}`);
  console.log(`last recompute: ${last?.weights} weights, ${last?.flags} flags; bench process RSS ${rss.toFixed(0)} MB`);
  for (const line of incremental) console.log(line);
  console.log(`load average (1/5/15 min) before the measurements ${loadBefore}, after ${load()}; ${os.cpus().length} cores`);
} finally {
  await stack.close();
}
