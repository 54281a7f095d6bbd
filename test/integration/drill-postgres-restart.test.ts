/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: PostgreSQL stopped and started again
 * under load (scripts/drills/backing-restart.ts). Real processes (web, worker, ws) on real
 * PostgreSQL and Redis; the drill reports what was lost and the test asserts that it is nothing.
 * One drill per file, with its own database and key prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runRestartDrill } from '../../scripts/drills/backing-restart.js';
import { expectNothingLost, useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('PostgreSQL restart under load: the same standard', async () => {
  const r = await runRestartDrill({
    service: 'postgres',
    downS: 3,
    beforeS: 2,
    afterS: 4,
    clients: 20,
    stack: { redisUrl: drill.env.redisUrl, prefix: drill.env.prefix },
    log: drill.quiet,
  });
  expectNothingLost(r.lost);
  expect(r.traffic.during.unavailable503).toBeGreaterThan(0);
  expect(r.traffic.recoveryMs).not.toBeNull();
}, 180_000);
