/**
 * provenance-check: the work behind POST /api/v1/provenance/check (URL normalisation, URL and
 * headline matching, similarity scoring, verdict). Web enqueues it and waits up to JOB_WAIT_MS;
 * after that the client polls GET /api/v1/provenance/check/<job_id> (results are kept 1 hour).
 * Read-only, so retrying is always safe.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MAX_CHECK_TEXT_LENGTH, MAX_CHECK_URL_LENGTH, runCheck } from '../src/provenance/index.js';
import { normalizeUrl } from '../src/platform/url/normalize.js';
import { defineJob } from './define.js';

const payload = z
  .object({
    url: z.string().min(1).max(MAX_CHECK_URL_LENGTH).optional(),
    text: z.string().min(1).max(MAX_CHECK_TEXT_LENGTH).optional(),
  })
  .refine((p) => p.url !== undefined || p.text !== undefined, 'url or text is required')
  .refine((p) => p.url === undefined || normalizeUrl(p.url) !== null, 'url must be an http(s) URL');

export const job = defineJob({
  name: 'provenance-check',
  payload,
  // A random id: it is the poll URL's token (GET /provenance/check/<job_id>/), so it must not be guessable.
  options: { attempts: 2, backoffMs: 200, concurrency: 16, jobId: () => randomUUID() },
  run: (p, deps) => runCheck(deps, p),
});
