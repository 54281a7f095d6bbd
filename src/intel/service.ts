/**
 * Serving intel results (GET /intel/trending/, GET /intel/report/ and the MCP tools in front of
 * them): the cached JSON of a parameter set, or on a miss the worker's computation, awaited at most
 * JOB_WAIT_MS (else 503 intel_pending, not charged). A paid answer is authorized first, consuming
 * nothing, and its payment is consumed only once the result is ready.
 */
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { JobFailedError, type WaitOutcome } from '../platform/queue.js';
import type { Grant } from '../payments/index.js';
import { IntelCache } from './cache.js';
import { DEFAULT_HOURS, REPORT_TOP_N, TRENDING_TOP_N, type ReportParams, type TrendingParams } from './rules/report.js';

const pending = (jobId: string) =>
  new DomainError('intel_pending', 'the result for these parameters is being computed; retry shortly', { job_id: jobId }, { headers: { 'Retry-After': '2' } });
const failed = () => new DomainError('intel_unavailable', 'computing the result failed; retry later', null, { headers: { 'Retry-After': '30' } });

/** One intel result kind: its cache key, its worker job, and whether a parameter set is the default (kept warm anyway). */
interface IntelSource<P> {
  kind: 'trending' | 'report';
  key(p: P): string;
  compute(p: P, window: number): Promise<WaitOutcome<{ result: unknown }>>;
  isDefault(p: P): boolean;
}

type PaymentGrant = Extract<Grant, { kind: 'payment' }>;

/** An intel result as served: its JSON, whether it came from the cache, and what paid for it (with the consumed payment's commit). */
export interface IntelAnswer {
  json: string;
  hit: boolean;
  grant: Grant | null;
  committed: Awaited<ReturnType<PaymentGrant['commit']>> | null;
}

export class IntelService {
  readonly cache: IntelCache;
  private readonly trendingSource: IntelSource<TrendingParams>;
  private readonly reportSource: IntelSource<ReportParams>;

  constructor(deps: AppDeps) {
    const cache = (this.cache = new IntelCache(deps.redis, deps.config.QUEUE_PREFIX, deps.config.INTEL_CACHE_TTL_S));
    this.trendingSource = {
      kind: 'trending',
      key: (p) => cache.key('trending', p),
      compute: (p, window) => deps.queue.enqueueAndWait('intel-trending', { ...p, window }, deps.config.JOB_WAIT_MS),
      isDefault: (p) => p.hours === DEFAULT_HOURS && p.top_n === TRENDING_TOP_N.default,
    };
    this.reportSource = {
      kind: 'report',
      key: (p) => cache.key('report', p),
      compute: (p, window) => deps.queue.enqueueAndWait('intel-report', { ...p, window }, deps.config.JOB_WAIT_MS),
      isDefault: (p) => p.hours === DEFAULT_HOURS && p.top_n === REPORT_TOP_N.default && !p.topics.length,
    };
  }

  trending(p: TrendingParams): Promise<IntelAnswer> {
    return this.serve(this.trendingSource, p);
  }

  /** The report; `authorize` decides whether the caller paid (402/503 otherwise) before anything is computed. */
  report(p: ReportParams, authorize: () => Promise<Grant>): Promise<IntelAnswer> {
    return this.serve(this.reportSource, p, authorize);
  }

  /**
   * (Paid: authorize first, consuming nothing), note a non-default parameter set for the warm-up
   * schedule, serve it from the cache or compute it in the worker (waiting at most JOB_WAIT_MS,
   * else 503), (paid: only now consume the payment).
   */
  private async serve<P>(source: IntelSource<P>, p: P, authorize?: () => Promise<Grant>): Promise<IntelAnswer> {
    const grant = authorize ? await authorize() : null;
    if (!source.isDefault(p)) await this.cache.noteRequest(source.kind, p as TrendingParams | ReportParams);
    const key = source.key(p);
    let json = await this.cache.get(key);
    const hit = json !== null;
    if (json === null) {
      let out;
      try {
        out = await source.compute(p, this.cache.window());
      } catch (err) {
        if (err instanceof JobFailedError) throw failed();
        throw err;
      }
      if (out.state === 'pending') throw pending(out.jobId);
      json = out.result.result ? JSON.stringify(out.result.result) : await this.cache.get(key);
      if (!json) throw pending(out.jobId);
    }
    const committed = grant?.kind === 'payment' ? await grant.commit() : null;
    return { json, hit, grant, committed };
  }
}
