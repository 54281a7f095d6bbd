/**
 * publish-due: the clock's safety net for scheduled articles. Each scheduled article has its own
 * delayed publish-scheduled job; if that job was lost (Redis restored from an old snapshot, say),
 * this sweep enqueues it again. The deterministic job id keeps the two from publishing twice.
 */
import { z } from 'zod';
import { defaultJobOptions, defineJob } from './define.js';

export const payload = z.object({}).default({});

export const job = defineJob({
  name: 'publish-due',
  payload,
  options: { ...defaultJobOptions, attempts: 1, concurrency: 1 },
  async run(_p, deps) {
    const due = await deps.db
      .selectFrom('articles')
      .select('id')
      .where('status', '=', 'scheduled')
      .where('scheduled_for', '<=', new Date())
      .limit(1000)
      .execute();
    for (const { id } of due) {
      await deps.enqueue('publish-scheduled', { article_id: id }, { jobId: `publish-scheduled-${id}-due-${Date.now()}` });
    }
    return { enqueued: due.length };
  },
});
