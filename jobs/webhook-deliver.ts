/**
 * webhook-deliver: one delivery run for one endpoint (src/webhooks/deliver.ts): its due deliveries
 * are POSTed, outcomes recorded, retries scheduled in PostgreSQL (webhook_deliveries.next_attempt_at).
 *  - Woken by the relay after it committed new deliveries, by the API (test delivery, redeliver)
 *    and by the webhook-sweep job (retries that came due, wake-ups that were lost).
 *  - Every wake-up of an endpoint shares one deduplication id: at most one run per endpoint is
 *    active and one waits, so one slow endpoint holds at most one of the WEBHOOK_CONCURRENCY slots.
 * HTTP failures are not job failures (they are recorded on the delivery); a job fails only when
 * PostgreSQL does. It is not retried by BullMQ (a retry could overlap a newer run of the endpoint):
 * its deliveries stay due and the sweep wakes a fresh run within a second.
 */
import { z } from 'zod';
import { deliverEndpoint } from '../src/webhooks/index.js';
import { defineJob } from './define.js';

const payload = z.object({ endpoint_id: z.number().int().positive() });

export const job = defineJob({
  name: 'webhook-deliver',
  payload,
  options: { attempts: 1, backoffMs: 1000, concurrency: 500, concurrencyFromConfig: (c) => c.WEBHOOK_CONCURRENCY },
  async run(p, deps) {
    return deliverEndpoint(deps, p.endpoint_id);
  },
});
