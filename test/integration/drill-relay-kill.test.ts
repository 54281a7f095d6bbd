/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: SIGKILL of a worker in the middle of
 * an event relay pass (scripts/drills/relay-kill.ts). Real processes (web, worker, ws) on real
 * PostgreSQL and Redis; the drill reports what was lost and the test asserts that it is nothing.
 * One drill per file, with its own database and key prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runRelayKillDrill } from '../../scripts/drills/relay-kill.js';
import { useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('SIGKILL of a worker mid-relay (after XADD, before commit): the next worker re-sends, nothing lost, duplicates keep their event_id', async () => {
  const r = await runRelayKillDrill({ events: 4000, lockMs: 2000, stack: drill.stack, log: drill.quiet });
  expect(r.problems).toEqual([]);
  expect(r.inFlightAtKill).toBeGreaterThan(0);
  expect(r.lost).toBe(0);
  expect(r.delivered).toBe(r.committed);
  expect(r.committed).toBe(4000);
  expect(r.duplicateMismatches).toEqual([]);
}, 120_000);
