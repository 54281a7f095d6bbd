/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: a stream client that stops reading
 * (scripts/drills/slow-client.ts). Real processes (web, worker, ws) on real PostgreSQL and Redis;
 * the drill reports what was lost and the test asserts that it is nothing. One drill per file, with
 * its own database and key prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runSlowClientDrill } from '../../scripts/drills/slow-client.js';
import { expectNothingLost, useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('a client that stops reading gets a backlog reconcile and does not slow the others', async () => {
  const r = await runSlowClientDrill({ clients: 20, events: 2500, rate: 1000, stack: drill.stack, log: drill.quiet });
  expectNothingLost(r.lost);
  expect(r.slow.reconciles).toContain('backlog');
}, 180_000);
