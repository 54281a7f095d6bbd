/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: Redis stopped and started again under
 * load (scripts/drills/backing-restart.ts). Real processes (web, worker, ws) on real PostgreSQL and
 * Redis; the drill reports what was lost and the test asserts that it is nothing. One drill per
 * file, with its own database and key prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runRestartDrill } from '../../scripts/drills/backing-restart.js';
import { expectNothingLost, useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('Redis restart under load: 503 with a code while down, recovers by itself, nothing acknowledged lost', async () => {
  const r = await runRestartDrill({ service: 'redis', downS: 3, beforeS: 2, afterS: 4, clients: 20, stack: { databaseUrl: drill.env.databaseUrl }, log: drill.quiet });
  expectNothingLost(r.lost);
  expect(r.traffic.during.unavailable503).toBeGreaterThan(0);
  expect(r.traffic.recoveryMs).not.toBeNull();
  expect(r.stream.complete + r.stream.reconciled).toBe(20);
}, 180_000);
