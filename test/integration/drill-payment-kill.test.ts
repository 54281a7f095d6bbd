/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: SIGKILL of a worker in the middle of
 * x402 settlements (scripts/drills/payment-kill.ts). Real processes (web, worker, ws) on real
 * PostgreSQL and Redis; the drill reports what was lost and the test asserts that it is nothing.
 * One drill per file, with its own database and key prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runPaymentKillDrill } from '../../scripts/drills/payment-kill.js';
import { expectNothingLost, useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('SIGKILL of a worker mid-settlement: payments the facilitator settled end settled, once, nobody suspended', async () => {
  const r = await runPaymentKillDrill({ payments: 3, stack: drill.stack, log: drill.quiet });
  expectNothingLost(r.lost);
  expect(r.settlesHeldWhenKilled).toBe(3);
  expect(r.states).toEqual({ settled: 3 });
}, 120_000);
