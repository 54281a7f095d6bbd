/**
 * publish-due: the clock's safety net for scheduled articles. Each scheduled article has its own
 * delayed publish-scheduled job; if that job was lost (Redis restored from an old snapshot, say) or
 * failed for good, this sweep publishes the article itself. publishIfDue is idempotent (a guarded
 * transition with its event in one transaction), so the job and the sweep never publish twice.
 */
import { z } from 'zod';
import { publishDueArticles } from '../src/editor/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z.object({}).default({});

export const job = defineJob({
  name: 'publish-due',
  payload,
  options: { ...defaultJobOptions, attempts: 1, concurrency: 1 },
  async run(_p, deps) {
    return publishDueArticles(deps.db, 1000);
  },
});
