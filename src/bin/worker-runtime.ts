/**
 * The worker boundary: one BullMQ Worker per registered job. Payloads are parsed here (a bad
 * payload is a permanent failure); PermanentJobError is mapped to BullMQ's UnrecoverableError;
 * every other error is retried with the job's exponential backoff. Stalled jobs (a worker that
 * died mid-job) are moved back to wait by the stalled-job checker after the lock expires.
 * A job that fails because PostgreSQL is unreachable (checked with a probe, so a site that refuses
 * a page fetch does not count) is put back for OUTAGE_RETRY_MS without spending an attempt: an
 * outage longer than a job's backoff schedule must not fail its jobs for good.
 */
import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import { jobs, jobNames, type JobName } from '../../jobs/index.js';
import type { JobDeps, JobOptions } from '../../jobs/define.js';
import { PermanentJobError } from '../platform/errors/permanent-job-error.js';
import type { Db } from '../platform/db.js';
import { isBackendUnavailable } from '../platform/errors/backend.js';
import { JobMetricsRecorder } from '../platform/metrics/job-metrics.js';
import { pingDatabase } from '../platform/health.js';
import { redisOptionsFromUrl } from '../platform/queue.js';

interface WorkerRuntimeOptions {
  redisUrl: string;
  prefix: string;
  /** How long a job's lock lives without renewal; a crashed worker's job is recovered after it. */
  lockDurationMs: number;
  concurrencyCap: number;
  only?: JobName[];
}

const OUTAGE_RETRY_MS = 5000;

async function postgresUnreachable(db: Db): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([pingDatabase(db), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('probe timed out')), 2000)))]);
    return false;
  } catch {
    return true;
  } finally {
    clearTimeout(timer);
  }
}

export function startWorkers(deps: JobDeps, opts: WorkerRuntimeOptions): Worker[] {
  const names = opts.only ?? jobNames;
  // Job metrics go to Redis (web's /metrics exports them): workers have no port to scrape.
  const metrics = new JobMetricsRecorder(deps.redis, opts.prefix);
  const lostSample = (err: unknown) => deps.log.debug({ err: (err as Error).message }, 'job metrics sample lost');
  return names.map((name) => {
    const def = jobs[name];
    const worker = new Worker(
      name,
      async (job, token) => {
        const parsed = def.payload.safeParse(job.data);
        if (!parsed.success) {
          deps.log.error({ job: name, jobId: job.id, issues: parsed.error.issues.map((i) => i.path.join('.') + ': ' + i.message) }, 'bad job payload');
          throw new UnrecoverableError(`bad payload for ${name}`);
        }
        try {
          return await def.run(parsed.data as never, deps, { attempt: job.attemptsMade + 1, jobId: job.id! });
        } catch (err) {
          if (err instanceof PermanentJobError) throw new UnrecoverableError(err.message);
          if (token && isBackendUnavailable(err) && (await postgresUnreachable(deps.db))) {
            deps.log.warn({ job: name, jobId: job.id, err: (err as Error).message }, 'PostgreSQL unreachable: job put back without spending an attempt');
            await job.moveToDelayed(Date.now() + OUTAGE_RETRY_MS, token);
            throw new DelayedError();
          }
          throw err;
        }
      },
      {
        connection: redisOptionsFromUrl(opts.redisUrl),
        prefix: opts.prefix,
        concurrency: (def.options as JobOptions).concurrencyFromConfig?.(deps.config) ?? Math.min(def.options.concurrency, opts.concurrencyCap),
        lockDuration: opts.lockDurationMs,
        stalledInterval: Math.max(500, Math.floor(opts.lockDurationMs / 2)),
        maxStalledCount: 2,
      },
    );
    worker.on('completed', (job) => {
      const ms = job.finishedOn && job.processedOn ? job.finishedOn - job.processedOn : null;
      metrics.attempt(name, 'completed', ms).catch(lostSample);
    });
    worker.on('failed', (job, err) => {
      deps.log.warn({ job: name, jobId: job?.id, attempt: job?.attemptsMade, err: err.message }, 'job failed');
      // By now attemptsMade counts this attempt; BullMQ retries unless attempts are used up or the error is unrecoverable.
      const final = !job || err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
      const ms = job?.processedOn ? Date.now() - job.processedOn : null;
      metrics.attempt(name, final ? 'failed_final' : 'failed_retry', ms).catch(lostSample);
    });
    worker.on('stalled', () => {
      metrics.stalled(name).catch(lostSample);
    });
    worker.on('error', (err) => deps.log.error({ job: name, err: err.message }, 'worker error'));
    return worker;
  });
}
