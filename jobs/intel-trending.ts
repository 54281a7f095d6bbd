/**
 * intel-trending: compute GET /intel/trending/ results into the Redis cache (src/intel/cache.ts).
 *  - With {hours, top_n}: that parameter set (the web process enqueues it on a cache miss and waits
 *    at most JOB_WAIT_MS for the result).
 *  - Scheduled, with {}: the default set (24 h, top 20) and every set a client asked for in the last
 *    hour (at most 20), so the common ones are always served from the cache.
 * Idempotent: recomputing overwrites the cache with the same figures (up to the passing of time).
 */
import { z } from 'zod';
import { DEFAULT_HOURS, HOURS_RANGE, TRENDING_TOP_N, type TrendingParams } from '../src/intel/index.js';
import { IntelCache, intelJobId } from '../src/intel/index.js';
import { computeTrending, type TrendingResult } from '../src/intel/index.js';
import { defaultJobOptions, defineJob } from './define.js';

const payload = z
  .object({
    hours: z.number().int().min(HOURS_RANGE.min).max(HOURS_RANGE.max),
    top_n: z.number().int().min(TRENDING_TOP_N.min).max(TRENDING_TOP_N.max),
    /** Cache window of an on-demand computation (IntelCache.window): concurrent misses share one job. */
    window: z.number().int().nonnegative(),
  })
  .partial()
  .default({});

const DEFAULT_TRENDING: TrendingParams = { hours: DEFAULT_HOURS, top_n: TRENDING_TOP_N.default };

export const job = defineJob({
  name: 'intel-trending',
  payload,
  options: {
    ...defaultJobOptions,
    attempts: 2,
    backoffMs: 500,
    concurrency: 4,
    jobId: (p) => (p.window !== undefined && p.hours !== undefined && p.top_n !== undefined ? intelJobId('trending', { hours: p.hours, top_n: p.top_n }, p.window) : undefined),
  },
  async run(p, deps): Promise<{ result: TrendingResult | null; refreshed: number }> {
    const cache = new IntelCache(deps.redis, deps.config.QUEUE_PREFIX, deps.config.INTEL_CACHE_TTL_S);
    return cache.refresh('trending', (params: TrendingParams) => computeTrending(deps.db, params), {
      one: p.hours !== undefined && p.top_n !== undefined ? { hours: p.hours, top_n: p.top_n } : undefined,
      defaults: DEFAULT_TRENDING,
      valid: (s) => payload.safeParse(s).success && s.hours !== undefined,
    });
  },
});
