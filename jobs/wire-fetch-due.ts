/**
 * wire-fetch-due: the clock's fan-out for wire ingestion. Every enabled source whose next_fetch_at
 * has come gets its own wire-fetch job, so a slow or broken feed never holds up the others. The
 * job id carries the source and its next_fetch_at, so while a fetch of that round is waiting or
 * running, a second fan-out does not add it again.
 */
import { dueSources } from '../src/wire/index.js';
import { defineSweep } from './define.js';

export const job = defineSweep({
  name: 'wire-fetch-due',
  async run(deps) {
    const due = await dueSources(deps.db, new Date());
    for (const s of due) {
      await deps.enqueue('wire-fetch', { source_id: s.id, due_at: s.next_fetch_at.getTime() });
    }
    return { enqueued: due.length };
  },
});
