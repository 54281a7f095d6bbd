import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { startTestWorkers } from '../support/workers.js';
import type { Worker } from 'bullmq';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';

let relay: RunningRelay;

let deps: TestDeps;
let workers: Worker[] = [];

beforeAll(async () => {
  deps = await createTestDeps({ JOB_LOCK_MS: '1500' });
  relay = await startRelay(deps);
});
afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
  await deps.close();
});

function startInProcessWorkers() {
  workers = startTestWorkers(deps, undefined, { lockDurationMs: 1500 });
}

describe('job pipeline', () => {
  it('the web side can wait for a result, and gets "pending" when the bounded wait runs out', async () => {
    const pending = await deps.queue.enqueueAndWait('ping', { token: 'slow', sleep_ms: 1500 }, 200);
    expect(pending.state).toBe('pending');
    startInProcessWorkers();
    const done = await deps.queue.enqueueAndWait('ping', { token: 'hello' }, 5000);
    expect(done.state).toBe('completed');
    if (done.state === 'completed') expect(done.result.token).toBe('hello');
    // The timed-out job still completes later.
    const job = await deps.queue.queue('ping').getJob(pending.jobId);
    await expect.poll(async () => await job!.getState(), { timeout: 5000 }).toBe('completed');
  });

  it('rejects a bad payload at enqueue time', async () => {
    await expect(deps.queue.enqueue('ping', { token: '' } as never)).rejects.toThrow();
  });

  it('fails a bad payload permanently at the worker boundary (no retries)', async () => {
    // A payload written by an older deploy: bypasses enqueue-time validation.
    const job = await deps.queue.queue('ping').add('ping', { token: 42 }, { attempts: 5, backoff: { type: 'fixed', delay: 10 } });
    await expect.poll(async () => job.getState(), { timeout: 5000 }).toBe('failed');
    const fresh = await deps.queue.queue('ping').getJob(job.id!);
    expect(fresh!.attemptsMade).toBe(1);
    expect(fresh!.failedReason).toMatch(/bad payload/);
  });

  it('retries transient failures with backoff, then succeeds', async () => {
    const r = await deps.queue.enqueueAndWait('ping', { token: 'flaky', fail_first_attempts: 2 }, 10_000);
    expect(r.state).toBe('completed');
    if (r.state === 'completed') expect(r.result.attempt).toBe(3);
  });

  it('a deterministic job id makes a second enqueue a no-op (the article is published once)', async () => {
    const a = await deps.db
      .insertInto('articles')
      .values({ slug: 's', headline: 'Scheduled one', url: 'https://e.com/a', normalized_url: 'https://e.com/a', status: 'scheduled', scheduled_for: new Date(Date.now() - 1000) })
      .returning('id')
      .executeTakeFirstOrThrow();
    await relayed(deps);
    const before = await deps.redis.xlen(deps.events.streamKey);
    const id1 = await deps.queue.enqueue('publish-scheduled', { article_id: a.id });
    const id2 = await deps.queue.enqueue('publish-scheduled', { article_id: a.id });
    expect(id1).toBe(id2);
    await expect
      .poll(async () => (await deps.db.selectFrom('articles').select('status').where('id', '=', a.id).executeTakeFirstOrThrow()).status, { timeout: 5000 })
      .toBe('approved');
    // Running the job again by hand changes nothing and publishes nothing.
    const again = await deps.queue.enqueueAndWait('publish-scheduled', { article_id: a.id, publish_at: Date.now() }, 5000);
    expect(again.state === 'completed' && again.result).toEqual({ published: false });
    await relayed(deps);
    expect((await deps.redis.xlen(deps.events.streamKey)) - before).toBe(1);
    await relayed(deps);
    const [entry] = (await deps.redis.xrevrange(deps.events.streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
    const event = JSON.parse(entry[1][1]);
    expect(event).toMatchObject({ type: 'news.approved', id: a.id, status: 'approved', previous_status: 'scheduled', headline: 'Scheduled one' });
  });
});
