/**
 * wire-fetch: fetch one wire source and ingest its new items (src/wire/service.ts). One job per
 * source and due time, so one source's failure never affects another. Transient failures (network,
 * timeout, 5xx, 429, 408) are retried by the queue with backoff; malformed feeds and other 4xx fail
 * permanently and wait for the next scheduled fetch.
 */
import { z } from 'zod';
import { fetchWireSource } from '../src/wire/index.js';
import { defineJob } from './define.js';

const payload = z.object({
  source_id: z.number().int().positive(),
  /** The source's next_fetch_at (ms) when the clock's wire-fetch-due queued it: one job per source and due time. */
  due_at: z.number().int().nonnegative().optional(),
});

export const job = defineJob({
  name: 'wire-fetch',
  payload,
  options: { attempts: 3, backoffMs: 1000, concurrency: 8, jobId: (p) => (p.due_at !== undefined ? `wire-fetch-${p.source_id}-${p.due_at}` : undefined) },
  run: (p, deps) => fetchWireSource(deps, p.source_id),
});
