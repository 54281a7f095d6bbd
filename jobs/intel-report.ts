/**
 * intel-report: compute GET /intel/report/ into the Redis cache (src/intel/cache.ts), one key per
 * parameter set, INTEL_CACHE_TTL_S long.
 *  - With {hours, topics, top_n}: that set (enqueued by the web process on a cache miss).
 *  - Scheduled, with {}: the default set (24 h, all topics, top 10) and the sets clients asked for
 *    in the last hour (at most 20).
 * Idempotent: recomputing overwrites the cache.
 */
import { z } from 'zod';
import { DEFAULT_HOURS, HOURS_RANGE, MAX_TOPIC_LENGTH, MAX_TOPICS, REPORT_TOP_N, TOPIC_PATTERN, type ReportParams } from '../src/intel/index.js';
import { IntelCache, intelJobId } from '../src/intel/index.js';
import { computeReport, type IntelReport } from '../src/intel/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const params = z.object({
  hours: z.number().int().min(HOURS_RANGE.min).max(HOURS_RANGE.max),
  topics: z.array(z.string().max(MAX_TOPIC_LENGTH).regex(TOPIC_PATTERN)).max(MAX_TOPICS),
  top_n: z.number().int().min(REPORT_TOP_N.min).max(REPORT_TOP_N.max),
});

const payload = params
  .extend({
    /** Cache window of an on-demand computation (IntelCache.window): concurrent misses share one job. */
    window: z.number().int().nonnegative(),
  })
  .partial()
  .default({});

const DEFAULT_REPORT: ReportParams = { hours: DEFAULT_HOURS, topics: [], top_n: REPORT_TOP_N.default };

export const job = defineJob({
  name: 'intel-report',
  payload,
  options: {
    ...defaultJobOptions,
    attempts: 2,
    backoffMs: 500,
    concurrency: 4,
    jobId: (p) =>
      p.window !== undefined && p.hours !== undefined && p.top_n !== undefined
        ? intelJobId('report', { hours: p.hours, top_n: p.top_n, topics: p.topics ?? [] }, p.window)
        : undefined,
  },
  async run(p, deps): Promise<{ result: IntelReport | null; refreshed: number }> {
    const cache = new IntelCache(deps.redis, deps.config.QUEUE_PREFIX, deps.config.INTEL_CACHE_TTL_S);
    return cache.refresh('report', (set: ReportParams) => computeReport(deps.db, set, new Date(), cache), {
      one: p.hours !== undefined && p.top_n !== undefined ? { hours: p.hours, top_n: p.top_n, topics: [...new Set(p.topics ?? [])].sort() } : undefined,
      defaults: DEFAULT_REPORT,
      valid: (s) => params.safeParse(s).success,
    });
  },
});
