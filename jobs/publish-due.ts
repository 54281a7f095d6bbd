/**
 * publish-due: the clock's safety net for scheduled articles. Each scheduled article has its own
 * delayed publish-scheduled job; if that job was lost (Redis restored from an old snapshot, say) or
 * failed for good, this sweep publishes the article itself. publishIfDue is idempotent (a guarded
 * transition with its event in one transaction), so the job and the sweep never publish twice.
 */
import { publishDueArticles } from '../src/editor/index.js';
import { defineSweep } from './define.js';

export const job = defineSweep({
  name: 'publish-due',
  async run(deps) {
    return publishDueArticles(deps.db, 1000);
  },
});
