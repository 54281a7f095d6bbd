import { jobs } from '../../jobs/index.js';
import { schedules } from '../../jobs/schedules.js';
import { jobOptionsFor, type QueueClient } from '../platform/queue.js';

/**
 * Upsert every schedule of jobs/schedules.ts as a BullMQ job scheduler and remove schedulers that
 * are no longer listed. Safe to run from several clock processes at once (upserts are idempotent).
 */
export async function upsertSchedules(queue: QueueClient): Promise<{ upserted: string[]; removed: string[] }> {
  const upserted: string[] = [];
  const removed: string[] = [];
  const wanted = new Set(schedules.map((s) => `${s.job}:${s.id}`));
  for (const s of schedules) {
    const payload = jobs[s.job].payload.parse(s.payload);
    const { jobId: _ignored, delay: _d, ...opts } = jobOptionsFor(jobs, s.job, payload);
    await queue.queue(s.job).upsertJobScheduler(s.id, s.pattern ? { pattern: s.pattern, tz: 'UTC' } : { every: s.everyMs! }, { name: s.job, data: payload, opts });
    upserted.push(s.id);
  }
  for (const name of Object.keys(jobs) as (keyof typeof jobs)[]) {
    const existing = await queue.queue(name).getJobSchedulers();
    for (const sch of existing) {
      const id = sch.key ?? sch.id;
      if (id && !wanted.has(`${name}:${id}`)) {
        await queue.queue(name).removeJobScheduler(id);
        removed.push(id);
      }
    }
  }
  return { upserted, removed };
}
