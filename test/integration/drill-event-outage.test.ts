/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: Redis down between an event's commit
 * and its relay (scripts/drills/event-outage.ts). Real processes (web, worker, ws) on real
 * PostgreSQL and Redis; the drill reports what was lost and the test asserts that it is nothing.
 * One drill per file, with its own database and key prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runEventOutageDrill } from '../../scripts/drills/event-outage.js';
import { useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('Redis down between commit and relay: every committed event reaches a staff stream client and GET /events/, in order per article', async () => {
  const r = await runEventOutageDrill({ beforeS: 2, downS: 3, afterS: 3, editors: 2, eventsEndpoint: 'require', stack: { databaseUrl: drill.env.databaseUrl }, log: drill.quiet });
  expect(r.problems).toEqual([]);
  expect(r.outage.committedWhileDown).toBeGreaterThan(0);
  expect(r.committed).toBeGreaterThan(0);
  expect(r.lost).toBe(0);
  expect(r.delivered).toBe(r.committed);
  expect(r.endpoint).toMatchObject({ checked: true, missing: 0 });
  expect(r.order.violations).toEqual([]);
  expect(r.duplicateMismatches).toEqual([]);
}, 120_000);
