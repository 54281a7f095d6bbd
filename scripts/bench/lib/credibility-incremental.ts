/**
 * The per-vote credibility update of bench:credibility, on the bench's seeded month:
 *  - the update itself (`updateVoteCredibility`, the whole body of the credibility-vote job, which
 *    exists only for it) on 6,000 of the month's votes, a quarter of them by flagged voters, also
 *    split into the votes it discounts (a row written) and those it leaves at full weight, after
 *    the recompute's writes are vacuumed and checkpointed,
 *    alternated with a one-row read of the same vote (the least any per-vote job does) and with the
 *    same update on a pool that runs every statement unnamed (planned on every call), p50/p99;
 *  - the vote endpoint (POST /api/v1/news/{id}/vote/ through createApp, paced from 32 signed-in
 *    accounts) with the relay running, against the same with a worker applying the per-vote updates
 *    the relay enqueues; alternated rounds, p50/p99 over every round's samples.
 */
import type { Worker } from 'bullmq';
import { sql } from 'kysely';
import { wakeRelay } from '../../../jobs/relay-events.js';
import { createApp } from '../../../src/app.js';
import { startWorkers } from '../../../src/bin/worker-runtime.js';
import { updateVoteCredibility } from '../../../src/credibility/index.js';
import { createDb } from '../../../src/platform/db.js';
import { signAccessToken } from '../../../src/identity/tokens.js';
import { RelayWaker } from '../../../src/relay/waker.js';
import { allRoutes } from '../../../src/routes.js';
import { listenLocal, type BenchStack } from './bench-stack.js';
import { pct } from './stats.js';

type Kind = 'article_vote' | 'yap_vote';
const fmt = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${pct(s, 0.5).toFixed(2)} ms, p99 ${pct(s, 0.99).toFixed(2)} ms (n ${s.length})`;
};

/**
 * `n` votes of the month: three quarters at random, a quarter by voters named in a published flag.
 * The bench's generated month has no vote pattern the recompute flags; when it published none, 200
 * indiscriminate-voting flags of five voters each are published here (as a recompute would), so
 * that quarter exists and every vote's read finds flags to look through.
 */
async function sampleVotes(stack: BenchStack, month: string, n: number): Promise<{ kind: Kind; target: number; user: number }[]> {
  await sql`
    INSERT INTO credibility_flags (month, kind, members, evidence)
    SELECT ${month}, 'indiscriminate', ARRAY(SELECT 1 + (g * 5 + i) * 37 % (SELECT count(*) FROM users)::int FROM generate_series(0, 4) i), '{"votes": 100}'::jsonb
    FROM generate_series(0, 199) g
    WHERE NOT EXISTS (SELECT 1 FROM credibility_flags WHERE month = ${month})`.execute(stack.db);
  const r = await sql<{ kind: Kind; target: number; user: number }>`
    (SELECT 'article_vote' AS kind, article_id AS target, user_id AS "user" FROM votes TABLESAMPLE SYSTEM (2) LIMIT ${Math.round(n * 0.6)})
    UNION ALL (SELECT 'yap_vote', yap_id, user_id FROM yap_votes TABLESAMPLE SYSTEM (5) LIMIT ${Math.round(n * 0.15)})
    UNION ALL (SELECT 'article_vote', v.article_id, v.user_id FROM votes v
               WHERE v.user_id IN (SELECT unnest(members) FROM credibility_flags WHERE month = ${month}) LIMIT ${Math.round(n * 0.25)})`.execute(stack.db);
  return r.rows;
}

export async function updateTimes(stack: BenchStack, month: string, n = 6000): Promise<string[]> {
  const votes = await sampleVotes(stack, month, n);
  // The per-vote update runs all month, the recompute once a night: measured once the recompute's
  // writes are vacuumed and checkpointed, not during that aftermath.
  await sql`VACUUM ANALYZE`.execute(stack.db);
  await sql`CHECKPOINT`.execute(stack.db);
  // The same update with every statement unnamed (DB_PREPARED_STATEMENTS=false): planned on every call.
  const unnamed = createDb(stack.config.DATABASE_URL, { max: 1, prepared: false });
  const update: number[] = [];
  const unprepared: number[] = [];
  const read: number[] = [];
  const discounted: boolean[] = [];
  const time = async <T>(into: number[], work: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    const out = await work();
    into.push(performance.now() - t);
    return out;
  };
  try {
    for (const v of votes) {
      const table = sql.table(v.kind === 'article_vote' ? 'votes' : 'yap_votes');
      const target = sql.ref(v.kind === 'article_vote' ? 'article_id' : 'yap_id');
      await time(read, () => sql`SELECT weight FROM ${table} WHERE ${target} = ${v.target} AND user_id = ${v.user}`.execute(stack.db));
      const w = await time(update, () => updateVoteCredibility(stack.db, v.kind, v.target, v.user));
      discounted.push(w.weight !== null && w.weight < 1);
      await time(unprepared, () => updateVoteCredibility(unnamed, v.kind, v.target, v.user));
    }
  } finally {
    await unnamed.destroy();
  }
  // What the update adds to a job that does the least a per-vote job does (read the vote), vote by vote.
  const added = update.map((t, i) => t - read[i]);
  const split = (want: boolean) => update.filter((_, i) => discounted[i] === want);
  return [
    `per-vote update (the credibility-vote job's body)  ${fmt(update)}  goal p99 < 2 ms`,
    `  of which votes discounted (a row written)       ${fmt(split(true))}`,
    `  of which votes at full weight                   ${fmt(split(false))}`,
    `the same, statements unnamed (planned every call) ${fmt(unprepared)}`,
    `one-row read of the vote (baseline)               ${fmt(read)}`,
    `update less the read, paired per vote             ${fmt(added)}`,
  ];
}

/** The relay (as the worker process runs it) and, when `apply`, a worker for credibility-vote jobs. */
async function pipeline(stack: BenchStack, apply: boolean): Promise<() => Promise<void>> {
  const { deps, config } = stack;
  const jobDeps = { config, db: deps.db, redis: deps.redis, events: deps.events, log: deps.log, enqueue: deps.queue.enqueuer };
  const opts = { redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, lockDurationMs: 30_000, concurrencyCap: 4 };
  const workers: Worker[] = startWorkers(jobDeps, { ...opts, only: apply ? ['relay-events', 'credibility-vote'] : ['relay-events'] });
  const waker = new RelayWaker({ databaseUrl: config.DATABASE_URL, log: deps.log, wake: wakeRelay(deps.queue.enqueuer) });
  await waker.ready;
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  return async () => {
    await waker.close();
    await Promise.all(workers.map((w) => w.close()));
  };
}

/** Votes at `rate`/s for `seconds` from the accounts' tokens on the articles, open loop; latencies in ms. */
async function paced(origin: string, tokens: string[], articles: number[], rate: number, seconds: number, round: number): Promise<number[]> {
  const lat: number[] = [];
  const inflight: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < seconds * 1000; i++) {
    const token = tokens[i % tokens.length];
    const article = articles[(i * 7 + round * 13) % articles.length];
    const weight = (i + round) % 3 === 0 ? -1 : 1;
    const t = performance.now();
    inflight.push(
      fetch(`${origin}/api/v1/news/${article}/vote/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ weight }),
      }).then(async (r) => {
        await r.arrayBuffer();
        if (r.status === 200) lat.push(performance.now() - t);
      }),
    );
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + ((i + 1) * 1000) / rate - performance.now())));
  }
  await Promise.all(inflight);
  return lat;
}

export async function endpointLatency(stack: BenchStack, rounds = 3, seconds = 8, rate = 60): Promise<string[]> {
  const users = await sql<{ id: number; wallet_address: string }>`SELECT id, wallet_address FROM users ORDER BY id DESC LIMIT 32`.execute(stack.db);
  const tokens = await Promise.all(users.rows.map((u) => signAccessToken(stack.config.JWT_SECRET, { userId: u.id, address: u.wallet_address, roles: [] })));
  const articles = (await sql<{ id: number }>`SELECT id FROM articles WHERE status = 'approved' ORDER BY id LIMIT 500`.execute(stack.db)).rows.map((a) => a.id);
  const { origin, server } = await listenLocal(createApp(stack.deps, allRoutes(stack.deps)));
  const lat = { off: [] as number[], on: [] as number[] };
  try {
    await paced(origin, tokens, articles, rate, 2, 99); // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const mode of ['off', 'on'] as const) {
        const stop = await pipeline(stack, mode === 'on');
        lat[mode].push(...(await paced(origin, tokens, articles, rate, seconds, round)));
        await stop();
        // The updates enqueued while nobody applied them are dropped, not left to the next round.
        if (mode === 'off') await stack.deps.queue.queue('credibility-vote').drain();
      }
    }
  } finally {
    server.close();
  }
  const p99 = (xs: number[]) =>
    pct(
      [...xs].sort((a, b) => a - b),
      0.99,
    );
  return [
    `vote endpoint, relay only (baseline)              ${fmt(lat.off)}`,
    `vote endpoint, relay + per-vote updates           ${fmt(lat.on)}  p99 ${(p99(lat.on) / p99(lat.off)).toFixed(2)}x  goal within 1.05x`,
  ];
}
