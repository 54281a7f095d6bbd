/**
 * Redis cache of computed intel results, one key per parameter set, INTEL_CACHE_TTL_S long.
 * Values are the JSON the web process serves as-is. Parameter sets that clients asked for are
 * remembered for REQUESTED_WINDOW_S in a sorted set, so the scheduled jobs keep them warm.
 */
import { reportParamsId, trendingParamsId, type HourBucket, type ReportParams, type TrendingParams } from './rules/report.js';
import type { Redis } from '../platform/redis.js';
import { readMindshareLeaders, type MindshareLeaders } from '../assets/index.js';
import { intelPostingBasisKey, intelRequestedKey, intelResultKey } from '../platform/redis-keys.js';

type IntelKind = 'trending' | 'report';

/** The intel jobs' id scheme for an on-demand computation of one parameter set in one cache window. */
export function intelJobId(kind: 'trending', p: TrendingParams, window: number): string;
export function intelJobId(kind: 'report', p: ReportParams, window: number): string;
export function intelJobId(kind: IntelKind, p: TrendingParams | ReportParams, window: number): string {
  const id = kind === 'report' ? reportParamsId(p as ReportParams) : trendingParamsId(p as TrendingParams);
  return `intel-${kind}-${id}-b${window}`;
}

/** A parameter set asked for within this many seconds is refreshed by the schedule. */
const REQUESTED_WINDOW_S = 3600;
/** At most this many non-default parameter sets per kind are refreshed per scheduled run. */
const MAX_WARM_SETS = 20;

export class IntelCache {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly ttlS: number,
  ) {}

  key(kind: 'trending', p: TrendingParams): string;
  key(kind: 'report', p: ReportParams): string;
  key(kind: IntelKind, p: TrendingParams | ReportParams): string {
    const id = kind === 'report' ? reportParamsId(p as ReportParams) : trendingParamsId(p as TrendingParams);
    return intelResultKey(this.prefix, kind, id);
  }

  /**
   * Computes parameter sets into the cache (the intel jobs): `one` when given (an on-demand run, its
   * result returned), otherwise `defaults` and each set clients asked for recently that `valid` accepts.
   */
  async refresh<P extends TrendingParams | ReportParams, R>(
    kind: IntelKind,
    compute: (p: P) => Promise<R>,
    o: { one?: P; defaults: P; valid: (p: P) => boolean },
  ): Promise<{ result: R | null; refreshed: number }> {
    const keyOf = (p: P) => this.key(kind as 'report', p as ReportParams);
    const put = async (p: P) => {
      const result = await compute(p);
      await this.put(keyOf(p), result);
      return result;
    };
    if (o.one) return { result: await put(o.one), refreshed: 1 };
    const sets = new Map<string, P>([[keyOf(o.defaults), o.defaults]]);
    for (const s of await this.recentRequests<P>(kind)) {
      if (o.valid(s)) sets.set(keyOf(s), s);
    }
    for (const s of sets.values()) await put(s);
    return { result: null, refreshed: sets.size };
  }

  /** The TTL window now: on-demand jobs of one parameter set share an id within it (intelJobId), so concurrent misses share one job. */
  window(nowMs = Date.now()): number {
    return Math.floor(nowMs / (this.ttlS * 1000));
  }

  async get(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  async put(key: string, value: unknown): Promise<void> {
    await this.redis.set(key, JSON.stringify(value), 'EX', this.ttlS);
  }

  private basisKey(hourStart: Date) {
    return intelPostingBasisKey(this.prefix, hourStart);
  }

  /** The posting-signal basis of one UTC hour (src/intel/compute.ts), kept two hours. */
  async getBasis(hourStart: Date): Promise<HourBucket[] | null> {
    const v = await this.redis.get(this.basisKey(hourStart));
    return v ? (JSON.parse(v) as HourBucket[]) : null;
  }

  async putBasis(hourStart: Date, buckets: HourBucket[]): Promise<void> {
    await this.redis.set(this.basisKey(hourStart), JSON.stringify(buckets), 'EX', 7200);
  }

  /** The leading assets of each mindshare window (stored by the asset-mindshare job), for the report's `mindshare` section. */
  async mindshareLeaders(top: number): Promise<MindshareLeaders | null> {
    return readMindshareLeaders(this.redis, this.prefix, top);
  }

  private requestedKey(kind: IntelKind) {
    return intelRequestedKey(this.prefix, kind);
  }

  async noteRequest(kind: IntelKind, p: TrendingParams | ReportParams, nowMs = Date.now()): Promise<void> {
    await this.redis.zadd(this.requestedKey(kind), nowMs, JSON.stringify(p));
  }

  /** Parameter sets asked for recently (newest first); older entries are dropped. */
  async recentRequests<P>(kind: IntelKind, nowMs = Date.now()): Promise<P[]> {
    const key = this.requestedKey(kind);
    await this.redis.zremrangebyscore(key, '-inf', nowMs - REQUESTED_WINDOW_S * 1000);
    const members = await this.redis.zrevrange(key, 0, MAX_WARM_SETS - 1);
    return members.map((m) => JSON.parse(m) as P);
  }
}
