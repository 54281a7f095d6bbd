/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: SIGTERM of the web and ws processes
 * under load (scripts/drills/sigterm.ts). Real processes (web, worker, ws) on real PostgreSQL and
 * Redis; the drill reports what was lost and the test asserts that it is nothing. One drill per
 * file, with its own database and key prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runSigtermDrill } from '../../scripts/drills/sigterm.js';
import { useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('SIGTERM of web and ws under load: started requests finish, stream clients get 1001 and resume without loss', async () => {
  const r = await runSigtermDrill({
    clients: 30,
    concurrency: 8,
    stack: { databaseUrl: drill.env.databaseUrl, redisUrl: drill.env.redisUrl, prefix: drill.env.prefix },
    log: drill.quiet,
  });
  // Joined, so that a failure prints every finding (an array diff elides them).
  expect(r.lost.join('\n')).toBe('');
  expect(r.web.startedBeforeSignal).toBeGreaterThan(0);
  expect(r.ws.closeCodes['1001']).toBe(30);
}, 180_000);
