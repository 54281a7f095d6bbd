/**
 * Fault drill (test/tiers.ts, drills tier): a credibility recompute whose worker is SIGKILLed in the
 * middle of staging. The job's lock runs out (JOB_LOCK_MS), BullMQ hands the job to another worker
 * process, which takes the run over once its lease runs out (CREDIBILITY_RUN_LEASE_S), stages what
 * is missing from the run's cursor on and publishes: the month's weights and flags are exactly those
 * of an uninterrupted run. The month is the rewards drill's simulated month (honest accounts and
 * four attacks). The worker is held inside a staging transaction (we hold an uncommitted row of a
 * later batch) and killed there, after earlier batches were committed. The second worker holds its
 * jobs with a longer lock: its own attempt (the detection is seconds of CPU on a loaded machine)
 * must not lose the job to a stall check and be run again as a fresh run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeMonth } from '../../src/credibility/index.js';
import { monthBounds } from '../../src/credibility/rules/month.js';
import type { Db } from '../../src/platform/db.js';
import { addMonths, monthOf } from '../../src/rewards/index.js';
import { entryArgs, PREBUILT_JS_ENV } from '../../scripts/lib/harness.js';
import { simulateMonth } from '../../scripts/drills/lib/rewards-simulate.js';
import { storeMonth } from '../../scripts/drills/lib/rewards-store.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

const LOCK = { JOB_LOCK_MS: '1500', CREDIBILITY_RUN_LEASE_S: '4' };
/** The taking-over worker: finds the killed worker's job stalled within one stall interval (half its lock). */
const SECOND_LOCK = { JOB_LOCK_MS: '12000', CREDIBILITY_RUN_LEASE_S: '4' };
let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps(LOCK);
});
afterAll(async () => {
  await deps.close();
});

/** A worker process from the test run's prebuilt JavaScript (scripts/lib/prebuilt-js.ts; through tsx when run without the set-up). */
function spawnWorker(lock: Record<string, string>): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env, ...deps.env.env, ...lock, LOG_LEVEL: 'silent' };
  delete env[PREBUILT_JS_ENV];
  return spawn(process.execPath, entryArgs('src/bin/worker.ts', true), { env, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function published(db: Db, month: string) {
  const weights = await db
    .selectFrom('credibility_weights')
    .select(['kind', 'target_id', 'user_id', 'weight', 'reasons'])
    .where('month', '=', month)
    .orderBy('kind')
    .orderBy('target_id')
    .orderBy('user_id')
    .execute();
  const flags = await db.selectFrom('credibility_flags').select(['kind', 'members', 'evidence']).where('month', '=', month).orderBy('kind').orderBy('members').execute();
  return { weights, flags };
}

async function poll<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('credibility recompute: a killed worker', () => {
  it('a recompute killed in the middle of staging resumes from its cursor and publishes the weights of an uninterrupted run', async () => {
    const month = addMonths(monthOf(new Date()), -1);
    const { start, end } = monthBounds(month);
    await storeMonth(deps.db, simulateMonth(7, start, end, 200), 'drill-credibility-secret-drill-credibility-0123');
    const reference = await recomputeMonth(deps.db, month);
    expect(reference.status).toBe('finished');
    const expected = await published(deps.db, month);
    expect(expected.weights.length).toBe(reference.weights);
    expect(expected.flags.length).toBeGreaterThan(0);
    // The next run must write every weight again, not find them in place.
    await deps.db.deleteFrom('credibility_weights').where('month', '=', month).execute();
    await deps.db.deleteFrom('credibility_flags').where('month', '=', month).execute();

    // The gate: an uncommitted staged row of the next run for the highest user with weights, who is
    // in its last staging batch; the worker's insert of that batch waits on it.
    const runId = reference.runId + 1;
    const lastUser = expected.weights.reduce((m, w) => (w.user_id > m.user_id ? w : m));
    const gate = new pg.Client({ connectionString: deps.env.databaseUrl });
    await gate.connect();
    await gate.query('BEGIN');
    await gate.query(`INSERT INTO credibility_staged (run_id, kind, target_id, user_id, weight, reasons) VALUES ($1, $2, $3, $4, 0, '{}')`, [
      runId,
      lastUser.kind,
      lastUser.target_id,
      lastUser.user_id,
    ]);

    const first = spawnWorker(LOCK);
    let second: ChildProcess | undefined;
    try {
      const job = await deps.queue.queue('credibility-recompute').add('credibility-recompute', { month }, { attempts: 5 });
      // Held inside a later batch's staging transaction, after at least one batch was committed.
      const atKill = await poll(
        'the worker waiting on the gate after staging a batch',
        async () => {
          const r = await deps.db.selectFrom('credibility_runs').select(['cursor', 'finished_at']).where('id', '=', runId).executeTakeFirst();
          // Read on the pool, not on the gate's connection: inside a transaction pg_stat_activity is one snapshot.
          const waiting = await sql`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%credibility_staged%'`.execute(deps.db);
          return r && r.cursor > 0 && waiting.rows.length ? r : undefined;
        },
        60_000,
      ).catch(async (err: Error) => {
        const runs = await deps.db.selectFrom('credibility_runs').selectAll().execute();
        throw new Error(`${err.message}; reference ${reference.weights} weights; runs ${JSON.stringify(runs)}`);
      });
      expect(atKill.finished_at).toBeNull();
      first.kill('SIGKILL');
      await new Promise((r) => first.once('exit', r));
      await gate.query('ROLLBACK');
      const stagedAtKill = await deps.db
        .selectFrom('credibility_staged')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('run_id', '=', runId)
        .executeTakeFirstOrThrow();
      expect(Number(stagedAtKill.n)).toBeGreaterThan(0);
      expect(Number(stagedAtKill.n)).toBeLessThan(expected.weights.length);

      second = spawnWorker(SECOND_LOCK);
      const done = await poll(
        'the job completed by the second worker',
        // The taking-over run republishes every weight into an emptied table: minutes on a loaded machine.
        async () => ((await deps.queue.queue('credibility-recompute').getJob(job.id!))!.finishedOn ? job.id : undefined),
        240_000,
      );
      const finished = await deps.queue.queue('credibility-recompute').getJob(done!);
      expect(await finished!.getState()).toBe('completed');
      expect(finished!.returnvalue.months[0]).toMatchObject({ month, resumed: true, weights: expected.weights.length });
      const run = await deps.db.selectFrom('credibility_runs').selectAll().where('id', '=', runId).executeTakeFirstOrThrow();
      expect(run.finished_at).not.toBeNull();
      expect(run.attempts).toBe(2);
      expect(await published(deps.db, month)).toEqual(expected);
      const left = await deps.db.selectFrom('credibility_staged').select('run_id').executeTakeFirst();
      expect(left).toBeUndefined();
    } finally {
      await gate.end().catch(() => undefined);
      for (const p of [first, second]) if (p && p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
  }, 360_000);
});
