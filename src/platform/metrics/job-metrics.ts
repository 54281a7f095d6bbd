/**
 * Job counts, durations and failures by job name, kept in one Redis hash so that they reach a
 * Prometheus scrape on a platform where worker processes have no port: the worker's event handlers
 * write (JobMetricsRecorder), web's /metrics reads and exports (readJobMetrics). The counters are
 * cluster-wide (every worker adds to the same fields) and survive worker restarts; a Redis flush
 * resets them, which Prometheus treats like any counter reset.
 *
 * Hash `<prefix>:metrics:jobs`, fields (job names come from jobs/index.ts, so cardinality is bounded):
 *   completed|<job>          completed jobs
 *   failed|<job>|retry       failed attempts that will be retried
 *   failed|<job>|final       jobs that failed for good (attempts exhausted or unrecoverable)
 *   stalled|<job>            jobs found stalled (their worker died or blocked) and moved back to wait
 *   dur_b|<job>|<i>          attempts whose duration fell in bucket i (not cumulative; summed at read)
 *   dur_sum|<job>, dur_count|<job>
 */
import type { Redis } from '../redis.js';
import type { MetricObject } from './custom-metrics.js';
import { jobMetricsKey } from '../redis-keys.js';

const JOB_DURATION_BUCKETS_S = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

type JobOutcome = 'completed' | 'failed_retry' | 'failed_final';

export class JobMetricsRecorder {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = jobMetricsKey(prefix);
  }

  /** Count one finished attempt. Best effort: a Redis error loses a sample, never fails the job. */
  async attempt(job: string, outcome: JobOutcome, durationMs: number | null): Promise<void> {
    const m = this.redis.multi();
    if (outcome === 'completed') m.hincrby(this.key, `completed|${job}`, 1);
    else m.hincrby(this.key, `failed|${job}|${outcome === 'failed_final' ? 'final' : 'retry'}`, 1);
    if (durationMs !== null && Number.isFinite(durationMs) && durationMs >= 0) {
      const s = durationMs / 1000;
      let i = JOB_DURATION_BUCKETS_S.findIndex((le) => s <= le);
      if (i < 0) i = JOB_DURATION_BUCKETS_S.length; // +Inf
      m.hincrby(this.key, `dur_b|${job}|${i}`, 1);
      m.hincrbyfloat(this.key, `dur_sum|${job}`, s);
      m.hincrby(this.key, `dur_count|${job}`, 1);
    }
    await m.exec();
  }

  async stalled(job: string): Promise<void> {
    await this.redis.hincrby(this.key, `stalled|${job}`, 1);
  }
}

/** The hash as Prometheus metric objects (counters and a histogram), one series per known job. */
export async function readJobMetrics(redis: Redis, prefix: string, jobNames: readonly string[]): Promise<MetricObject[]> {
  const raw = await redis.hgetall(jobMetricsKey(prefix));
  const n = (field: string) => Number(raw[field] ?? 0);
  const completed: MetricObject = { name: 'squid_jobs_completed_total', help: 'Jobs completed, by job name (all workers).', type: 'counter', values: [] };
  const failed: MetricObject = {
    name: 'squid_jobs_failed_total',
    help: 'Failed job attempts, by job name; final="true" when the job will not be retried (all workers).',
    type: 'counter',
    values: [],
  };
  const stalled: MetricObject = {
    name: 'squid_jobs_stalled_total',
    help: 'Jobs recovered after their worker stopped renewing the lock, by job name.',
    type: 'counter',
    values: [],
  };
  const duration: MetricObject = {
    name: 'squid_job_duration_seconds',
    help: 'Duration of job attempts (completed and failed), by job name.',
    type: 'histogram',
    values: [],
  };
  for (const job of jobNames) {
    completed.values.push({ labels: { job }, value: n(`completed|${job}`) });
    failed.values.push({ labels: { job, final: 'false' }, value: n(`failed|${job}|retry`) });
    failed.values.push({ labels: { job, final: 'true' }, value: n(`failed|${job}|final`) });
    stalled.values.push({ labels: { job }, value: n(`stalled|${job}`) });
    let cumulative = 0;
    JOB_DURATION_BUCKETS_S.forEach((le, i) => {
      cumulative += n(`dur_b|${job}|${i}`);
      duration.values.push({ metricName: 'squid_job_duration_seconds_bucket', labels: { job, le }, value: cumulative });
    });
    cumulative += n(`dur_b|${job}|${JOB_DURATION_BUCKETS_S.length}`);
    duration.values.push({ metricName: 'squid_job_duration_seconds_bucket', labels: { job, le: '+Inf' }, value: cumulative });
    duration.values.push({ metricName: 'squid_job_duration_seconds_sum', labels: { job }, value: n(`dur_sum|${job}`) });
    duration.values.push({ metricName: 'squid_job_duration_seconds_count', labels: { job }, value: n(`dur_count|${job}`) });
  }
  return [completed, failed, stalled, duration];
}
