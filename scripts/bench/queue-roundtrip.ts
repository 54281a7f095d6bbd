/**
 * BullMQ round trip: enqueue -> worker -> result back in the web side (QueueEvents), for the
 * `ping` job, measured over N jobs sent one at a time (latency) and then all at once (throughput).
 * Starts its own Postgres/Redis unless DATABASE_URL/REDIS_URL are set. Prints p50/p99.
 *   npm run bench:queue -- [jobs=1000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis } from '../../src/platform/redis.js';
import { backingServices } from '../lib/backing-services.js';
import type { RunningService } from '../lib/services.js';
import { startProcfileType } from '../lib/harness.js';
import { jobs } from '../../jobs/index.js';

const N = Number(process.argv[2] ?? 1000);
const tmp = mkdtempSync(path.join(os.tmpdir(), 'squid-bench-'));
const started: RunningService[] = [];
const log = (l: string) => console.error(`[bench] ${l}`);

function pct(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

try {
  const { adminUrl: databaseUrl, redisUrl } = await backingServices(tmp, started, { log, database: 'bench' });
  const prefix = `bench${process.pid}`;
  const worker = startProcfileType(
    'worker',
    { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn', JWT_SECRET: 'b'.repeat(40) },
    { echo: 'all' },
  );
  const redis = createRedis(redisUrl, 'command', 'bench');
  const queue = new QueueClient(jobs, redis, redisUrl, prefix);
  // Warm-up: wait until the worker answers.
  for (;;) {
    const r = await queue.enqueueAndWait('ping', { token: 'warm' }, 2000);
    if (r.state === 'completed') break;
  }
  for (let i = 0; i < 50; i++) await queue.enqueueAndWait('ping', { token: `w${i}` }, 5000);

  const lat: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const r = await queue.enqueueAndWait('ping', { token: `s${i}` }, 10_000);
    if (r.state !== 'completed') throw new Error('job did not complete in 10 s');
    lat.push(performance.now() - t0);
  }
  lat.sort((a, b) => a - b);
  console.log(`sequential round trip over ${N} jobs: p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms, max ${lat[lat.length - 1].toFixed(2)} ms`);

  const conc: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      const s = performance.now();
      const r = await queue.enqueueAndWait('ping', { token: `c${i}` }, 30_000);
      if (r.state !== 'completed') throw new Error('job did not complete in 30 s');
      conc.push(performance.now() - s);
    }),
  );
  const wall = performance.now() - t0;
  conc.sort((a, b) => a - b);
  console.log(`${N} jobs at once: ${((N / wall) * 1000).toFixed(0)} jobs/s, round trip p50 ${pct(conc, 50).toFixed(1)} ms, p99 ${pct(conc, 99).toFixed(1)} ms`);
  await queue.close();
  redis.disconnect();
  await worker.stop();
} finally {
  for (const s of started.reverse()) await s.stop();
  rmSync(tmp, { recursive: true, force: true });
}
