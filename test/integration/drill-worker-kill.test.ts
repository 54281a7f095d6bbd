/**
 * Fault drill (drills tier, test/tiers.ts) at a small scale: SIGKILL of a worker in the middle of
 * page-title, provenance, distribution and story-assignment jobs (scripts/drills/worker-kill.ts).
 * Real processes (web, worker, ws) on real PostgreSQL and Redis; the drill reports what was lost
 * and the test asserts that it is nothing. One drill per file, with its own database and key
 * prefix, so drills run side by side.
 */
import { expect, it } from 'vitest';
import { runWorkerKillDrill } from '../../scripts/drills/worker-kill.js';
import { expectNothingLost, useDrillEnv } from '../support/drill-env.js';

const drill = useDrillEnv();

it('SIGKILL of a worker mid-job: page titles, provenance checks and the monthly distribution each complete once', async () => {
  const r = await runWorkerKillDrill({ articles: 12, checks: 30, recipients: 40, stories: 12, stack: drill.stack, log: drill.quiet });
  expectNothingLost(r.lost);
  expect(r.pageTitle.killedWhileActive).toBeGreaterThan(0);
  expect(r.pageTitle).toMatchObject({ created: 12, duplicates: 0, stillProvisional: 0, wrongHeadline: 0, failedJobs: 0 });
  expect(r.provenance).toMatchObject({ accepted: 30, results: 30, missing: 0 });
  expect(r.distribution).toMatchObject({ killedInsideTransaction: true, distributions: 1, drops: 40, duplicateDrops: 0, sumMatches: true, secondRun: 'already_distributed' });
  expect(r.storyAssign).toMatchObject({ items: 12, killedInsideTransaction: true, unassigned: 0, assignedTwice: 0, countMismatches: 0, failedJobs: 0 });
  expect(r.storyAssign.activeAtKill).toBeGreaterThan(0);
}, 180_000);
