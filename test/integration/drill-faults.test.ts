/**
 * The fault drills of scripts/drills/ at a small scale, as tests: real processes (web, worker, ws)
 * on real PostgreSQL and Redis, killed, signalled and restarted; each drill reports what was lost
 * and the test asserts that it is nothing. One file, so the drills run one after another.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRestartDrill } from '../../scripts/drills/backing-restart.js';
import { runEventOutageDrill } from '../../scripts/drills/event-outage.js';
import { runPaymentKillDrill } from '../../scripts/drills/payment-kill.js';
import { runRelayKillDrill } from '../../scripts/drills/relay-kill.js';
import { runSigtermDrill } from '../../scripts/drills/sigterm.js';
import { runSlowClientDrill } from '../../scripts/drills/slow-client.js';
import { runWorkerKillDrill } from '../../scripts/drills/worker-kill.js';
import { createTestEnv, type TestEnv } from '../support/context.js';

let env: TestEnv;
const quiet = () => undefined;

beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.cleanup();
});

describe('fault drills', () => {
  it('SIGKILL of a worker mid-job: page titles, provenance checks and the monthly distribution each complete once', async () => {
    const r = await runWorkerKillDrill({
      articles: 12,
      checks: 30,
      recipients: 40,
      stories: 12,
      stack: { databaseUrl: env.databaseUrl, redisUrl: env.redisUrl, prefix: env.prefix },
      log: quiet,
    });
    expect(r.lost).toEqual([]);
    expect(r.pageTitle.killedWhileActive).toBeGreaterThan(0);
    expect(r.pageTitle).toMatchObject({ created: 12, duplicates: 0, stillProvisional: 0, wrongHeadline: 0, failedJobs: 0 });
    expect(r.provenance).toMatchObject({ accepted: 30, results: 30, missing: 0 });
    expect(r.distribution).toMatchObject({ killedInsideTransaction: true, distributions: 1, drops: 40, duplicateDrops: 0, sumMatches: true, secondRun: 'already_distributed' });
    expect(r.storyAssign).toMatchObject({ items: 12, killedInsideTransaction: true, unassigned: 0, assignedTwice: 0, countMismatches: 0, failedJobs: 0 });
    expect(r.storyAssign.activeAtKill).toBeGreaterThan(0);
  }, 180_000);

  it('SIGKILL of a worker mid-settlement: payments the facilitator settled end settled, once, nobody suspended', async () => {
    const r = await runPaymentKillDrill({ payments: 3, stack: { databaseUrl: env.databaseUrl, redisUrl: env.redisUrl, prefix: `${env.prefix}pay` }, log: quiet });
    expect(r.lost).toEqual([]);
    expect(r.settlesHeldWhenKilled).toBe(3);
    expect(r.states).toEqual({ settled: 3 });
  }, 120_000);

  it('Redis restart under load: 503 with a code while down, recovers by itself, nothing acknowledged lost', async () => {
    const r = await runRestartDrill({ service: 'redis', downS: 3, beforeS: 2, afterS: 4, clients: 20, stack: { databaseUrl: env.databaseUrl }, log: quiet });
    expect(r.lost).toEqual([]);
    expect(r.traffic.during.unavailable503).toBeGreaterThan(0);
    expect(r.traffic.recoveryMs).not.toBeNull();
    expect(r.stream.complete + r.stream.reconciled).toBe(20);
  }, 180_000);

  it('PostgreSQL restart under load: the same standard', async () => {
    const r = await runRestartDrill({
      service: 'postgres',
      downS: 3,
      beforeS: 2,
      afterS: 4,
      clients: 20,
      stack: { redisUrl: env.redisUrl, prefix: `${env.prefix}pg` },
      log: quiet,
    });
    expect(r.lost).toEqual([]);
    expect(r.traffic.during.unavailable503).toBeGreaterThan(0);
    expect(r.traffic.recoveryMs).not.toBeNull();
  }, 180_000);

  it('SIGTERM of web and ws under load: started requests finish, stream clients get 1001 and resume without loss', async () => {
    const r = await runSigtermDrill({ clients: 30, concurrency: 8, stack: { databaseUrl: env.databaseUrl, redisUrl: env.redisUrl, prefix: `${env.prefix}st` }, log: quiet });
    expect(r.lost).toEqual([]);
    expect(r.web.startedBeforeSignal).toBeGreaterThan(0);
    expect(r.ws.closeCodes['1001']).toBe(30);
  }, 180_000);

  it('a client that stops reading gets a backlog reconcile and does not slow the others', async () => {
    const r = await runSlowClientDrill({
      clients: 20,
      events: 2500,
      rate: 1000,
      stack: { databaseUrl: env.databaseUrl, redisUrl: env.redisUrl, prefix: `${env.prefix}sc` },
      log: quiet,
    });
    expect(r.lost).toEqual([]);
    expect(r.slow.reconciles).toContain('backlog');
  }, 180_000);

  it('Redis down between commit and relay: every committed event reaches a staff stream client and GET /events/, in order per article', async () => {
    const r = await runEventOutageDrill({ beforeS: 2, downS: 3, afterS: 3, editors: 2, eventsEndpoint: 'require', stack: { databaseUrl: env.databaseUrl }, log: quiet });
    expect(r.problems).toEqual([]);
    expect(r.outage.committedWhileDown).toBeGreaterThan(0);
    expect(r.committed).toBeGreaterThan(0);
    expect(r.lost).toBe(0);
    expect(r.delivered).toBe(r.committed);
    expect(r.endpoint).toMatchObject({ checked: true, missing: 0 });
    expect(r.order.violations).toEqual([]);
    expect(r.duplicateMismatches).toEqual([]);
  }, 120_000);

  it('SIGKILL of a worker mid-relay (after XADD, before commit): the next worker re-sends, nothing lost, duplicates keep their event_id', async () => {
    const r = await runRelayKillDrill({ events: 4000, lockMs: 2000, stack: { databaseUrl: env.databaseUrl, redisUrl: env.redisUrl, prefix: `${env.prefix}rk` }, log: quiet });
    expect(r.problems).toEqual([]);
    expect(r.inFlightAtKill).toBeGreaterThan(0);
    expect(r.lost).toBe(0);
    expect(r.delivered).toBe(r.committed);
    expect(r.committed).toBe(4000);
    expect(r.duplicateMismatches).toEqual([]);
  }, 120_000);
});
