/**
 * Intel benchmarks, on 100,000 articles carrying 2,000,000 clicks (generate_series):
 *  1. Worker compute time of the report (computeReport, what the intel-report job runs) for three
 *     parameter sets, median and max of 5 runs each; with the hourly posting-signal basis cached (as
 *     in the worker) and recomputed (the first report of each UTC hour).
 *  2. Cached GET /api/v1/intel/report/ with builder API keys: p50/p99 and throughput, from a client
 *     process (closed loop, 16 connections).
 *  3. The cost of paying per request: the same cached report bought with a fresh x402 payment per
 *     request (PAYMENT-SIGNATURE: EIP-3009 verification with viem, replay guard in Redis, payment
 *     row in Postgres, settle job enqueued), against the builder-key runs of the same process,
 *     alternating; plus the CPU time of the signature verification alone.
 * Clicks are the articles' click counters (the report reads them; there is no per-click table).
 * Starts its own Postgres/Redis unless DATABASE_URL/REDIS_URL are set.   npx tsx scripts/bench/intel.ts
 */
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { sql } from 'kysely';
import { getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { IntelCache } from '../../src/intel/cache.js';
import { computeReport } from '../../src/intel/compute.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { paymentRequirements, resolveAsset } from '../../src/payments/requirements.js';
import { verifyExactPayment } from '../../src/payments/x402-verify.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { createRedis } from '../../src/platform/redis.js';
import type { RunningService } from '../lib/services.js';
import { backingServices } from '../lib/backing-services.js';
import { benchDeps, closeBenchDatabase, createBenchDatabase, stopBackingServices } from './lib/bench-stack.js';
import { koaListener } from '../../src/platform/http/listener.js';
import { timedGet } from './lib/load.js';
import { runJsonChild } from './lib/child.js';

const ARTICLES = 100_000;
const CLICKS = 2_000_000;
const CONCURRENCY = 16;
const mode = process.argv[2];

interface ClientResult {
  requests: number;
  seconds: number;
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

if (mode === 'client') {
  // Child: closed loop over a list of header sets, each used `reuse` ? forever : once.
  const [url, seconds, conc, file, reuse] = [process.argv[3], Number(process.argv[4]), Number(process.argv[5]), process.argv[6], process.argv[7] === 'reuse'];
  const headers = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>[];
  const agent = new http.Agent({ keepAlive: true, maxSockets: conc });
  const u = new URL(url);
  const lat: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const until = performance.now() + seconds * 1000;
  const one = (h: Record<string, string>) => timedGet(agent, u, u.pathname + u.search, h, { lat, statuses });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (performance.now() < until) {
        if (!reuse && next >= headers.length) break;
        await one(headers[next++ % headers.length]);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0;
  const r: ClientResult = {
    requests: lat.length,
    seconds: elapsed,
    rps: lat.length / elapsed,
    mean: lat.reduce((s, x) => s + x, 0) / Math.max(1, lat.length),
    p50: q(0.5),
    p99: q(0.99),
    statuses,
  };
  process.stdout.write(JSON.stringify(r) + '\n');
  process.exit(0);
}

async function runClient(url: string, seconds: number, headers: Record<string, string>[], reuse: boolean, dir: string): Promise<ClientResult> {
  const file = path.join(dir, `headers-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(file, JSON.stringify(headers));
  const r = await runJsonChild<ClientResult>(fileURLToPath(import.meta.url), ['client', url, String(seconds), String(CONCURRENCY), file, reuse ? 'reuse' : 'once']);
  rmSync(file, { force: true });
  return r;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-intel-'));
const started: RunningService[] = [];
const log = (l: string) => console.error(`[bench] ${l}`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x: number) => x.toFixed(1);

try {
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log });
  const dbName = `squid_bench_intel_${process.pid}`;
  const { admin, url: databaseUrl } = await createBenchDatabase(adminUrl, dbName);
  const payTo = getAddress(`0x${'7'.repeat(40)}`);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    QUEUE_PREFIX: `benchintel${process.pid}`,
    LOG_LEVEL: 'silent',
    ANON_DAILY_QUOTA: '100000000',
    X402_PAY_TO: payTo,
    // Measures the verification path without a facilitator: settlement deferred to the (absent) job;
    // bench:x402 measures synchronous settlement.
    X402_SETTLEMENT_MODE: 'deferred',
    INTEL_CACHE_TTL_S: '3600',
  });
  const db = createDb(config.DATABASE_URL, { max: 10 });
  await migrateToLatest(db);

  // ---- Data: 100,000 articles over the last 60 days, Zipf-ish tags and sources, 2,000,000 clicks.
  let t = performance.now();
  await sql`
    INSERT INTO articles (slug, headline, url, normalized_url, source, status, tags, clicks, vote_count, votes_cast, yap_count, published_at, created_at)
    SELECT 'a-' || g, 'Article ' || g, 'https://s' || s.src || '.example/a/' || g, 'https://s' || s.src || '.example/a/' || g,
           's' || s.src || '.example',
           CASE WHEN r.st < 0.90 THEN 'approved' WHEN r.st < 0.95 THEN 'submitted' WHEN r.st < 0.98 THEN 'killed' ELSE 'scheduled' END,
           ARRAY(SELECT DISTINCT 'tag-' || floor(200 * power(random(), 2))::int FROM generate_series(1, 1 + (g % 3)) WHERE g > 0),
           floor(-ln(1 - random()) * 20)::int,
           floor(random() * 30)::int - 5, floor(random() * 40)::int, floor(random() * 12)::int,
           CASE WHEN r.st < 0.90 THEN now() - r.age ELSE NULL END,
           now() - r.age - interval '10 minutes'
    FROM generate_series(1, ${ARTICLES}) AS g
    CROSS JOIN LATERAL (SELECT random() AS st, random() * interval '60 days' AS age WHERE g > 0) r
    CROSS JOIN LATERAL (SELECT floor(500 * power(random(), 3))::int AS src WHERE g > 0) s`.execute(db);
  const sum = Number((await sql<{ s: number }>`SELECT sum(clicks)::int8 AS s FROM articles`.execute(db)).rows[0].s);
  // Land exactly on 2,000,000 clicks: spread the difference over the first |diff| articles.
  const diff = CLICKS - sum;
  await sql`UPDATE articles SET clicks = greatest(0, clicks + ${Math.sign(diff)}) WHERE id <= ${Math.abs(diff)}`.execute(db);
  // Hot scores live in article_hot_scores (a row per article, created by the insert trigger).
  await sql`UPDATE article_hot_scores SET hot_score = random() * 50`.execute(db);
  await sql`ANALYZE articles`.execute(db);
  await sql`VACUUM ANALYZE article_hot_scores`.execute(db);
  const totals = (
    await sql<{ n: number; c: number; a: number }>`SELECT count(*)::int AS n, sum(clicks)::int8 AS c, count(*) FILTER (WHERE status = 'approved')::int AS a FROM articles`.execute(
      db,
    )
  ).rows[0];
  console.log(`data: ${totals.n} articles (${totals.a} approved), ${totals.c} clicks, seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // ---- 1. Worker compute time.
  const sets = [
    { name: 'default (24 h, all topics, top 10)', p: { hours: 24, topics: [], top_n: 10 } },
    { name: '168 h, top 50', p: { hours: 168, topics: [], top_n: 50 } },
    { name: '168 h, topics tag-1,tag-2,tag-3', p: { hours: 168, topics: ['tag-1', 'tag-2', 'tag-3'], top_n: 10 } },
  ];
  const redis = createRedis(config.REDIS_URL, 'command', 'bench', { autoPipelining: true }); // as src/bin/web.ts
  const basisCache = new IntelCache(redis, config.QUEUE_PREFIX, config.INTEL_CACHE_TTL_S);
  await computeReport(db, sets[0].p); // warm-up
  for (const s of sets) {
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      await computeReport(db, s.p);
      cold.push(performance.now() - t);
      t = performance.now();
      await computeReport(db, s.p, new Date(), basisCache);
      warm.push(performance.now() - t);
    }
    console.log(
      `report compute, ${s.name}: median ${f1(median(warm))} ms, max ${f1(Math.max(...warm))} ms as the worker runs it (posting-signal basis cached for the hour); ${f1(median(cold))} ms with the basis recomputed (first report of an hour) (5 runs each)`,
    );
  }

  // ---- Web app with the default report cached.
  const deps = benchDeps(config, db, redis, 'silent');
  const cache = new IntelCache(redis, config.QUEUE_PREFIX, config.INTEL_CACHE_TTL_S);
  await cache.put(cache.key('report', sets[0].p), await computeReport(db, sets[0].p));
  const server = http.createServer(koaListener(createApp(deps)));
  const base = await new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as any).port}`)));
  const url = `${base}/api/v1/intel/report/`;

  // Builder keys (50,000 requests per day each): enough of them for every run.
  const builderHeaders: Record<string, string>[] = [];
  for (let i = 0; i < 40; i++) {
    const k = generateApiKey();
    const id = generateKeyId();
    await insertApiKey(db, { id, hash: k.hash, first4: k.first4, last4: k.last4, name: `bench ${i}`, email: null, useCase: null, userId: null, tier: 'builder' });
    builderHeaders.push({ authorization: `Bearer ${k.raw}` });
  }

  // Fresh x402 payments, one per request (signing is done here, not timed).
  const req: PaymentRequirements = paymentRequirements(config, resolveAsset(config), payTo, {
    purpose: 'intel_report',
    amountAtomic: 250_000n,
    path: '/api/v1/intel/report/',
    description: 'bench',
  });
  const accounts = Array.from({ length: 50 }, () => privateKeyToAccount(generatePrivateKey()));
  const sign = async (i: number) => {
    const acct = accounts[i % accounts.length];
    const now = BigInt(Math.floor(Date.now() / 1000));
    const authorization = {
      from: acct.address,
      to: payTo,
      value: 250_000n,
      validAfter: now - 600n,
      validBefore: now + 3600n,
      nonce: `0x${randomBytes(32).toString('hex')}` as Hex,
    };
    const signature = await acct.signTypedData({
      domain: { name: String(req.extra.name), version: String(req.extra.version), chainId: 8453, verifyingContract: getAddress(req.asset) },
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: authorization,
    });
    return encodePaymentSignatureHeader({
      x402Version: 2,
      accepted: req,
      payload: {
        authorization: { ...authorization, value: '250000', validAfter: authorization.validAfter.toString(), validBefore: authorization.validBefore.toString() },
        signature,
      },
    } as never);
  };
  t = performance.now();
  const PAID = 24_000;
  const paidHeaders: Record<string, string>[] = [];
  for (let i = 0; i < PAID; i++) paidHeaders.push({ 'payment-signature': await sign(i) });
  log(`signed ${PAID} payments in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  // ---- 3a. CPU time of the local verification alone.
  const VERIFY_N = 2000;
  t = performance.now();
  for (let i = 0; i < VERIFY_N; i++) await verifyExactPayment(paidHeaders[i]['payment-signature'], req);
  const verifyUs = ((performance.now() - t) / VERIFY_N) * 1000;

  // ---- 2 + 3b. Alternating runs in the same process: builder key (cached report) vs fresh x402 payment.
  await runClient(url, 2, builderHeaders, true, tmp); // warm-up
  const SECONDS = 5;
  const builder: ClientResult[] = [];
  const paid: ClientResult[] = [];
  let offset = 0;
  for (let i = 0; i < 3; i++) {
    const b = await runClient(url, SECONDS, builderHeaders, true, tmp);
    const slice = paidHeaders.slice(offset);
    const p = await runClient(url, SECONDS, slice, false, tmp);
    offset += p.requests;
    if (b.statuses['200'] !== b.requests) throw new Error(`builder run answered ${JSON.stringify(b.statuses)}`);
    if (p.statuses['200'] !== p.requests) throw new Error(`paid run answered ${JSON.stringify(p.statuses)}`);
    builder.push(b);
    paid.push(p);
  }
  const m = (rs: ClientResult[], k: keyof ClientResult) => median(rs.map((r) => r[k] as number));
  const payments = Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM payments`.execute(db)).rows[0].n);
  console.log(
    `cached GET /intel/report/ (builder key): p50 ${f1(m(builder, 'p50'))} ms, p99 ${f1(m(builder, 'p99'))} ms, ${m(builder, 'rps').toFixed(0)} req/s (median of 3 x ${SECONDS} s, ${CONCURRENCY} connections)`,
  );
  console.log(
    `same, paid per request over x402:     p50 ${f1(m(paid, 'p50'))} ms, p99 ${f1(m(paid, 'p99'))} ms, ${m(paid, 'rps').toFixed(0)} req/s (${payments} payments recorded)`,
  );
  const perReqBuilder = 1000 / m(builder, 'rps');
  const perReqPaid = 1000 / m(paid, 'rps');
  console.log(
    `ratio paid / builder: ${(perReqPaid / perReqBuilder).toFixed(2)}x server time per request (${(perReqPaid * 1000).toFixed(0)} vs ${(perReqBuilder * 1000).toFixed(0)} µs at saturation), p50 latency ${(m(paid, 'p50') / m(builder, 'p50')).toFixed(2)}x`,
  );
  console.log(`of which EIP-3009 signature verification alone: ${verifyUs.toFixed(0)} µs CPU per payment (${VERIFY_N} verifications)`);

  server.close();
  await closeBenchDatabase(deps, admin, dbName);
} finally {
  await stopBackingServices(started, tmp);
}
process.exit(0);
