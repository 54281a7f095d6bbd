/**
 * relay-events: relay the event log's unrelayed events to the Redis stream and perform their side
 * effects (src/relay/relay.ts), until the outbox is empty.
 *  - Woken soon after each commit that recorded events: the worker's waker (src/relay/waker.ts)
 *    probes the outbox every RELAY_POLL_MS (20 ms) and enqueues this job when a committed event
 *    waits, deduplicated so that at most one woken run is active and one waits (a wake-up during a
 *    run is never lost).
 *  - Swept by the clock every RELAY_SWEEP_MS (jobs/schedules.ts), so nothing waits on a lost wake-up
 *    (Redis down at that moment, no worker with a waker running).
 * Several runs may overlap (a sweep and a woken run, several worker processes): the relay's
 * SKIP LOCKED claim shares the work and keeps each article's events in order.
 */
import { z } from 'zod';
import { relayUntilEmpty } from '../src/relay/index.js';
import { defineJob, type Enqueue } from './define.js';

const payload = z.object({}).default({});

/** The deduplication id of woken runs. */
export const RELAY_WAKE_ID = 'relay-events-wake';

/** What the waker (src/relay/waker.ts) calls when a committed event waits: one deduplicated relay-events run. */
export const wakeRelay = (enqueue: Enqueue) => () => enqueue('relay-events', {}, { dedupeId: RELAY_WAKE_ID });

/**
 * A run waits this long before its first pass, so that the commits of the next few milliseconds
 * ride along: at 200 events/s a pass then carries about 9 events instead of one or two, and the
 * relay's fixed cost per pass (a BullMQ job, one transaction, the feed-cache retirement) is shared.
 * A longer linger costs less relay CPU per event (the relay shares the machine with the writers)
 * and adds its length to an event's way to the stream: 40 ms is small against the stream's 200 ms
 * batch window (bench:events: commit -> XADD p99 49 ms at 200 events/s).
 */
const RELAY_LINGER_MS = 40;

export const job = defineJob({
  name: 'relay-events',
  payload,
  options: { attempts: 3, backoffMs: 500, concurrency: 2 },
  async run(_p, deps) {
    await new Promise((resolve) => setTimeout(resolve, RELAY_LINGER_MS));
    return relayUntilEmpty(deps, { budgetMs: 20_000 });
  },
});
