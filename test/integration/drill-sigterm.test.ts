/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: SIGTERM of the web and ws processes
 * under load (scripts/drills/sigterm.ts). Real processes (web, worker, ws) on real PostgreSQL and
 * Redis; the drill reports what was lost and the test asserts that it is nothing. One drill per
 * file, with its own database and key prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runSigtermDrill } from '../../scripts/drills/sigterm.js';
import { expectNothingLost, useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('SIGTERM of web and ws under load: started requests finish, stream clients get 1001 and resume without loss', async () => {
  const r = await runSigtermDrill({ clients: 30, concurrency: 8, stack: drill.stack, log: drill.quiet });
  expectNothingLost(r.lost);
  expect(r.web.startedBeforeSignal).toBeGreaterThan(0);
  expect(r.ws.closeCodes['1001']).toBe(30);
}, 180_000);
