/**
 * Identity benchmarks:
 *  1. Sign-ins per second: GET nonce -> personal_sign -> POST verify, from a client process with
 *     32 concurrent loops against the real app (client-side signing included in the figure).
 *  2. Per-request cost of the auth + quota + rate-limit middleware: the same tiny route served by the
 *     full app with a Bearer JWT (token verify, Redis daily quota, Redis per-IP limit, roles query)
 *     against a bare Koa app with only the error middleware and router. Alternating runs, medians.
 * Starts its own Postgres/Redis unless DATABASE_URL/REDIS_URL are set.   npm run bench:auth
 */
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { defineRoute } from '../../src/platform/http/route.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { createRedis } from '../../src/platform/redis.js';
import { allRoutes } from '../../src/routes.js';
import { signAccessToken } from '../../src/identity/tokens.js';
import type { RunningService } from '../lib/services.js';
import { backingServices } from '../lib/backing-services.js';
import { bareApp, benchDeps, benchLog, closeBenchDatabase, createBenchDatabase, listenLocal, stopBackingServices } from './lib/bench-stack.js';
import { loadFromChild } from './lib/load.js';
import { runJsonChild } from './lib/child.js';

const mode = process.argv[2];

if (mode === 'signin-client') {
  // Child: sign-in loops for N seconds.
  const [base, seconds, conc] = [process.argv[3], Number(process.argv[4]), Number(process.argv[5])];
  const agent = new http.Agent({ keepAlive: true });
  const accounts = Array.from({ length: conc }, () => privateKeyToAccount(generatePrivateKey()));
  let ok = 0;
  let failed = 0;
  const until = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all(
    accounts.map(async (acct) => {
      while (performance.now() < until) {
        const n = (await (await fetch(`${base}/api/v1/wallet/nonce/${acct.address}/`, { keepalive: true })).json()) as { nonce: string; message: string };
        const signature = await acct.signMessage({ message: n.message });
        const r = await fetch(`${base}/api/v1/wallet/verify/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ address: acct.address, signature, nonce: n.nonce }),
        });
        await r.arrayBuffer();
        if (r.status === 200) ok++;
        else failed++;
      }
    }),
  );
  agent.destroy();
  process.stdout.write(JSON.stringify({ ok, failed, perSecond: ok / ((performance.now() - t0) / 1000) }) + '\n');
  process.exit(0);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-auth-'));
const started: RunningService[] = [];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const { adminUrl, redisUrl } = await backingServices(tmp, started, { log: benchLog });
  const dbName = `squid_bench_auth_${process.pid}`;
  const { admin, url: databaseUrl } = await createBenchDatabase(adminUrl, dbName);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    QUEUE_PREFIX: `benchauth${process.pid}`,
    LOG_LEVEL: 'silent',
    ANON_DAILY_QUOTA: '100000000',
    SESSION_DAILY_QUOTA: '100000000',
  });
  const db = createDb(config.DATABASE_URL, { max: 10 });
  await migrateToLatest(db);
  const redis = createRedis(config.REDIS_URL, 'command', 'bench', { autoPipelining: true }); // as src/bin/web.ts
  const deps = benchDeps(config, db, redis, 'silent');
  const probe = (auth: boolean) =>
    defineRoute({
      method: 'get',
      path: '/bench/ping',
      operationId: 'benchPing',
      summary: 'bench',
      tags: ['bench'],
      auth: auth ? 'user' : undefined,
      rateLimit: auth ? { key: 'bench', points: 100_000_000, durationS: 60 } : undefined,
      responses: { 200: { description: 'ok' } },
      handler(ctx) {
        ctx.body = { ok: true };
      },
    });
  const full = createApp(deps, [...allRoutes(deps), probe(true)]);
  const bare = bareApp(deps.log);
  const listen = async (app: Koa) => (await listenLocal(app)).origin;
  const fullUrl = await listen(full);
  const bareUrl = await listen(bare);
  const user = await db
    .insertInto('users')
    .values({ wallet_address: '0x' + '1'.repeat(40) })
    .returning('id')
    .executeTakeFirstOrThrow();
  const token = await signAccessToken(config.JWT_SECRET, { userId: user.id, address: '0x' + '1'.repeat(40), roles: [] });

  // 1. Sign-ins per second.
  const signin = await runJsonChild<{ perSecond: number; ok: number; failed: number }>(fileURLToPath(import.meta.url), ['signin-client', fullUrl, '8', '32']);
  console.log(`sign-ins: ${signin.perSecond.toFixed(0)} per second (${signin.ok} ok, ${signin.failed} failed; 32 concurrent clients, signing included)`);

  // 2. Middleware cost.
  const withAuth: number[] = [];
  const without: number[] = [];
  const p99s: number[][] = [[], []];
  await loadFromChild(`${bareUrl}/api/v1/bench/ping`, 2, 32); // warm-up
  await loadFromChild(`${fullUrl}/api/v1/bench/ping`, 2, 32, { authorization: `Bearer ${token}` });
  for (let i = 0; i < 3; i++) {
    const b = await loadFromChild(`${bareUrl}/api/v1/bench/ping`, 5, 32);
    const f = await loadFromChild(`${fullUrl}/api/v1/bench/ping`, 5, 32, { authorization: `Bearer ${token}` });
    if (f.statuses['200'] !== f.requests) throw new Error(`full app answered ${JSON.stringify(f.statuses)}`);
    without.push(b.rps);
    withAuth.push(f.rps);
    p99s[0].push(b.p99);
    p99s[1].push(f.p99);
  }
  const mb = median(without);
  const mf = median(withAuth);
  console.log(`bare route:            ${mb.toFixed(0)} req/s, p99 ${median(p99s[0]).toFixed(1)} ms (median of 3 x 5 s, 32 connections)`);
  console.log(`with auth+quota+limit: ${mf.toFixed(0)} req/s, p99 ${median(p99s[1]).toFixed(1)} ms`);
  console.log(`ratio (with / without): ${(mf / mb).toFixed(2)}; extra cost per request ~${((1000 / mf - 1000 / mb) * 1000).toFixed(0)} µs of server time`);

  await closeBenchDatabase(deps, admin, dbName);
} finally {
  await stopBackingServices(started, tmp);
}
process.exit(0);
