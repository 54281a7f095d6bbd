/**
 * page-title-sweep: every minute, find submissions still on their provisional headline whose
 * page-title job was lost (Redis blip when the submission was answered, a flushed queue) or failed
 * after its retries (the site was down), and enqueue the job again. Bounded: at most MAX_SWEEPS
 * times per article, when it is 2, 4 and 8 minutes old, and only within its first 24 hours; never
 * after the page-title job found that the page has no usable title (page_title_failure). A job still
 * waiting in a backed-up queue may get a second copy: page-title is idempotent (it only replaces a
 * provisional headline), so the copy changes nothing.
 */
import { claimPageTitleSweep } from '../src/articles/index.js';
import { defineSweep } from './define.js';

export const MAX_SWEEPS = 3;
const PER_RUN = 200;

export const job = defineSweep({
  name: 'page-title-sweep',
  async run(deps) {
    const due = await claimPageTitleSweep(deps.db, { maxSweeps: MAX_SWEEPS, limit: PER_RUN });
    for (const a of due) {
      await deps.enqueue('page-title', { article_id: a.id, sweep: a.page_title_sweeps });
    }
    return { enqueued: due.map((a) => a.id) };
  },
});
