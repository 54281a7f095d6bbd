/**
 * x402 settlement on the request path: paid GET /api/v1/intel/report/ (cached report) with
 * a fresh x402 payment per request, against a local v2 facilitator (test/support/facilitator-server)
 * whose /settle answers after 50 ms and after 2 s, in X402_SETTLEMENT_MODE=sync (the default: settle,
 * then answer). Baselines in the same command and process: the same requests in deferred mode
 * (no facilitator call on the request path) and a builder API key (no payment at all).
 * Each figure is the median of 3 runs; a run is REQUESTS requests over CONCURRENCY connections.
 * Starts its own Postgres/Redis unless DATABASE_URL/REDIS_URL are set.   npm run bench:x402
 */
import http from 'node:http';
import type { PaymentRequirements } from '@x402/core/types';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { generateApiKey, generateKeyId } from '../../src/identity/api-keys.js';
import { createApp } from '../../src/app.js';
import type { Config } from '../../src/platform/config.js';
import { IntelCache } from '../../src/intel/cache.js';
import { computeReport } from '../../src/intel/compute.js';
import { paymentRequirements, resolveAsset } from '../../src/payments/requirements.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { startFacilitator } from '../../test/support/facilitator-server.js';
import { signedHeader } from '../../test/support/x402.js';
import { koaListener } from '../../src/platform/http/listener.js';
import { benchDeps, benchStack, median } from './lib/bench-stack.js';
import { timedGet } from './lib/load.js';

const CONCURRENCY = Number(process.argv.find((a) => a.startsWith('--concurrency='))?.split('=')[1] ?? 8);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const f1 = (x: number) => x.toFixed(1);

/** REQUESTS requests over CONCURRENCY keep-alive connections; latencies in ms. */
async function run(url: string, headers: Record<string, string>[]): Promise<{ p50: number; p99: number; statuses: Record<string, number> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const u = new URL(url);
  const lat: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const one = (h: Record<string, string>) => timedGet(agent, u, u.pathname, h, { lat, statuses });
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < headers.length) await one(headers[next++]);
    }),
  );
  agent.destroy();
  return { p50: pct(lat, 50), p99: pct(lat, 99), statuses };
}

const fac = await startFacilitator({ network: 'eip155:84532' });
const payTo = getAddress(`0x${'7'.repeat(40)}`);
const stack = await benchStack('x402', {
  QUEUE_PREFIX: `benchx402${process.pid}`,
  LOG_LEVEL: 'silent',
  NODE_ENV: 'development',
  ANON_DAILY_QUOTA: '100000000',
  X402_PAY_TO: payTo,
  X402_NETWORK: 'eip155:84532',
  X402_FACILITATOR_URL: fac.url,
  INTEL_CACHE_TTL_S: '3600',
});
try {
  const { db, config: base } = stack;
  const redis = stack.deps.redis;
  const cache = new IntelCache(redis, base.QUEUE_PREFIX, base.INTEL_CACHE_TTL_S);
  const params = { hours: 24, topics: [], top_n: 10 };
  await cache.put(cache.key('report', params), await computeReport(db, params));

  const serve = async (mode: 'sync' | 'deferred') => {
    const config = { ...base, X402_SETTLEMENT_MODE: mode } as Config;
    const deps = benchDeps(config, db, redis, 'silent');
    const server = http.createServer(koaListener(createApp(deps)));
    const url = await new Promise<string>((r) => server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server.address() as any).port}/api/v1/intel/report/`)));
    return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
  };
  const sync = await serve('sync');
  const deferred = await serve('deferred');

  const k = generateApiKey();
  const kid = generateKeyId();
  await insertApiKey(db, { id: kid, hash: k.hash, first4: k.first4, last4: k.last4, name: 'bench', email: null, useCase: null, userId: null, tier: 'enterprise' });
  const keyHeaders = (n: number) => Array.from({ length: n }, () => ({ authorization: `Bearer ${k.raw}` }));

  const req: PaymentRequirements = paymentRequirements(base, resolveAsset(base), payTo, {
    purpose: 'intel_report',
    amountAtomic: 250_000n,
    path: '/api/v1/intel/report/',
    description: 'bench',
  });
  const accounts = Array.from({ length: 20 }, () => privateKeyToAccount(generatePrivateKey()));
  let signed = 0;
  const paid = async (n: number) => {
    const out: Record<string, string>[] = [];
    for (let i = 0; i < n; i++)
      out.push({ 'payment-signature': await signedHeader(accounts[signed++ % accounts.length], req, { validBefore: BigInt(Math.floor(Date.now() / 1000) + 3600) }) });
    return out;
  };

  const scenarios: { name: string; requests: number; go: (n: number) => Promise<Awaited<ReturnType<typeof run>>> }[] = [
    { name: 'baseline: API key, no payment', requests: 400, go: async (n) => run(sync.url, keyHeaders(n)) },
    { name: 'baseline: x402, deferred settlement (no facilitator call on the path)', requests: 400, go: async (n) => run(deferred.url, await paid(n)) },
    {
      name: 'x402, sync settlement, facilitator /settle 50 ms',
      requests: 400,
      go: async (n) => {
        fac.setSettleDelay(50);
        return run(sync.url, await paid(n));
      },
    },
    {
      name: 'x402, sync settlement, facilitator /settle 2 s',
      requests: Math.max(16, 6 * CONCURRENCY),
      go: async (n) => {
        fac.setSettleDelay(2000);
        return run(sync.url, await paid(n));
      },
    },
  ];
  await run(sync.url, keyHeaders(100)); // warm-up
  console.log(`paid GET /api/v1/intel/report/ (cached report), ${CONCURRENCY} connections, median of 3 runs each:`);
  // --only=<substring>: run the matching scenarios (e.g. --only="2 s").
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  for (const s of scenarios.filter((x) => !only || x.name.includes(only))) {
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const r = await s.go(s.requests);
      const ok = (r.statuses['200'] ?? 0) === s.requests;
      if (!ok) throw new Error(`${s.name}: answered ${JSON.stringify(r.statuses)}`);
      runs.push(r);
    }
    console.log(`  ${s.name}: p50 ${f1(median(runs.map((r) => r.p50)))} ms, p99 ${f1(median(runs.map((r) => r.p99)))} ms (${s.requests} requests per run)`);
  }

  await sync.close();
  await deferred.close();
} finally {
  await fac.close();
  await stack.close();
}
process.exit(0);
