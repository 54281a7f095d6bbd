/**
 * webhook-sweep: every WEBHOOK_SWEEP_MS (jobs/schedules.ts), wake the delivery run of each active
 * endpoint that has a due delivery: retries whose time came, deliveries whose wake-up was lost
 * (Redis down when the relay committed, a flushed queue), runs that failed on a database error.
 * Wake-ups are deduplicated per endpoint, so sweeping an endpoint whose run is
 * active or waiting costs one Redis call and changes nothing.
 */
import { dueEndpoints } from '../src/webhooks/index.js';
import { wakeEndpoint } from '../src/webhooks/index.js';
import { defineSweep } from './define.js';

/** Endpoints woken per run at most (the next run continues). */
const PER_RUN = 5000;

export const job = defineSweep({
  name: 'webhook-sweep',
  async run(deps) {
    const due = await dueEndpoints(deps.db, PER_RUN);
    await Promise.all(due.map((id) => wakeEndpoint(deps.enqueue, id)));
    return { woken: due.length };
  },
});
