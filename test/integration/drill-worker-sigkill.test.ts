/**
 * Fault drill (test/tiers.ts, drills tier): a worker process SIGKILLed in the middle of a job. The
 * job's lock runs out (JOB_LOCK_MS) and another worker process picks it up; the rest of the job
 * pipeline is tested in-process in job-pipeline.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryArgs } from '../../scripts/lib/harness.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;

beforeAll(async () => {
  deps = await createTestDeps({ JOB_LOCK_MS: '1500' });
});
afterAll(async () => {
  await deps.close();
});

describe('job pipeline: a killed worker', () => {
  function spawnWorker(): ChildProcess {
    const child = spawn(process.execPath, entryArgs('src/bin/worker.ts', true), {
      env: { ...process.env, ...deps.env.env, JOB_LOCK_MS: '1500', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return child;
  }

  it('a job whose worker is SIGKILLed mid-run is picked up by another worker process and completes', async () => {
    const first = spawnWorker();
    const job = await deps.queue.queue('ping').add('ping', { token: 'survivor', sleep_ms: 4000, fail_first_attempts: 0 }, { attempts: 3 });
    // A worker process loads every job's feature before it takes a job: allow for a slow start.
    try {
      await expect.poll(async () => job.getState(), { timeout: 30_000, interval: 50 }).toBe('active');
    } catch (err) {
      first.kill('SIGKILL'); // not left running after a failure
      throw err;
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const second = spawnWorker();
    try {
      // The second worker's own slow start (as above), then the stalled check after the 1.5 s lock, then the 4 s job.
      await expect.poll(async () => (await deps.queue.queue('ping').getJob(job.id!))!.getState(), { timeout: 45_000, interval: 200 }).toBe('completed');
      const done = await deps.queue.queue('ping').getJob(job.id!);
      expect(done!.returnvalue.token).toBe('survivor');
      expect(done!.returnvalue.pid).toBe(second.pid);
      expect(done!.returnvalue.pid).not.toBe(first.pid);
    } finally {
      second.kill('SIGTERM');
      await new Promise((r) => second.once('exit', r));
    }
  }, 100_000);
});
