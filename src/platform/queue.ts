/**
 * Typed enqueue for the web process (and for jobs that enqueue follow-ups). One BullMQ queue per
 * job name, all under QUEUE_PREFIX. Payloads are validated before they are enqueued, so a caller
 * bug fails at the call site, and again at the worker boundary, because jobs outlive deploys.
 */
import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { EnqueueOptions } from '../../jobs/define.js';
import type { JobName, JobPayload, JobResult, Jobs } from '../../jobs/index.js';
import { BackendUnavailableError } from './errors/backend.js';
import type { Redis } from './redis.js';

/** Connection options for the connections BullMQ opens itself (workers, queue events): blocking, retry forever. */
export function redisOptionsFromUrl(url: string): ConnectionOptions {
  return { url, maxRetriesPerRequest: null, retryStrategy: (times: number) => Math.min(times * 100, 2000) };
}

export type WaitOutcome<R> = { state: 'completed'; jobId: string; result: R } | { state: 'pending'; jobId: string };

const WAIT_TIMED_OUT = Symbol('wait timed out');
/** How much longer than our own time-out BullMQ's wait keeps its listeners. */
const WAIT_LISTENER_GRACE_MS = 1000;

export class JobFailedError extends Error {
  constructor(
    readonly jobName: string,
    readonly jobId: string,
    reason: string,
  ) {
    super(`job ${jobName} ${jobId} failed: ${reason}`);
  }
}

export function jobOptionsFor(jobs: Jobs, name: JobName, payload: unknown, extra: EnqueueOptions = {}): JobsOptions {
  const def = jobs[name];
  const jobId = (def.options.jobId as ((p: unknown) => string | undefined) | undefined)?.(payload);
  return {
    jobId,
    ...(extra.dedupeId ? { deduplication: { id: extra.dedupeId, keepLastIfActive: true } } : {}),
    delay: extra.delayMs,
    attempts: def.options.attempts,
    backoff: { type: 'exponential', delay: def.options.backoffMs },
    // Completed jobs are trimmed; failed ones stay a week for inspection.
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  };
}

/** enqueueAndWait's wait for an event connection when the caller gives none (REDIS_COMMAND_TIMEOUT_MS's default). */
const DEFAULT_READY_TIMEOUT_MS = 5000;

export class QueueClient {
  private readonly queues = new Map<string, Queue>();
  private readonly events = new Map<string, QueueEvents>();
  /** BullMQ's own connection when the one given auto-pipelines (see createRedis); else the one given. */
  private ownConnection: Redis | null = null;

  constructor(
    /** The job registry (jobs/index.ts), given by the process that builds the client: payload schemas and options by name. */
    private readonly jobs: Jobs,
    private readonly connection: Redis,
    private readonly redisUrl: string,
    readonly prefix: string,
    /**
     * readyTimeoutMs: how long enqueueAndWait waits for a job's event connection to be ready (its
     * first use per job, or after Redis came back) before answering that Redis is unavailable; the
     * processes pass REDIS_COMMAND_TIMEOUT_MS. Without it a Redis that accepts connections but does
     * not answer would hold the request for ever.
     */
    private readonly opts: { readyTimeoutMs?: number } = {},
  ) {}

  private queueConnection(): Redis {
    if (!this.connection.options.enableAutoPipelining) return this.connection;
    if (!this.ownConnection) {
      this.ownConnection = this.connection.duplicate({ enableAutoPipelining: false, connectionName: `${this.connection.options.connectionName ?? 'queue'}-bullmq` });
      this.ownConnection.on('error', () => undefined);
    }
    return this.ownConnection;
  }

  /** Every job name of the registry (one BullMQ queue each). */
  get names(): JobName[] {
    return Object.keys(this.jobs) as JobName[];
  }

  queue(name: JobName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.queueConnection(), prefix: this.prefix });
      q.on('error', () => undefined);
      this.queues.set(name, q);
    }
    return q;
  }

  /** Enqueue a job; returns its id. A deterministic job id (the job's own scheme) makes a repeat add a no-op. */
  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, opts: EnqueueOptions = {}): Promise<string> {
    const parsed = this.jobs[name].payload.parse(payload);
    const job = await this.queue(name).add(name, parsed, jobOptionsFor(this.jobs, name, parsed, opts));
    return job.id!;
  }

  /** `enqueue` bound to this client, as jobs get it (JobDeps.enqueue). */
  readonly enqueuer = <N extends JobName>(name: N, payload: JobPayload<N>, opts?: EnqueueOptions): Promise<string> => this.enqueue(name, payload, opts);

  private queueEvents(name: JobName): QueueEvents {
    let qe = this.events.get(name);
    if (!qe) {
      qe = new QueueEvents(name, { connection: redisOptionsFromUrl(this.redisUrl), prefix: this.prefix });
      qe.on('error', () => undefined);
      this.events.set(name, qe);
    }
    return qe;
  }

  /**
   * Enqueue and wait at most `timeoutMs` for the result. On time-out the job keeps running and the
   * caller gets `pending` with the job id (its documented fallback). A failed job throws JobFailedError.
   */
  async enqueueAndWait<N extends JobName>(name: N, payload: JobPayload<N>, timeoutMs: number): Promise<WaitOutcome<JobResult<N>>> {
    const qe = this.queueEvents(name);
    await this.eventsReady(qe);
    const parsed = this.jobs[name].payload.parse(payload);
    const job = await this.queue(name).add(name, parsed, jobOptionsFor(this.jobs, name, parsed));
    if (timeoutMs <= 0) return { state: 'pending', jobId: job.id! };
    // Our own timer decides "pending"; BullMQ's ttl (later) only removes its listeners if the job
    // never finishes, and its late rejection is ignored.
    const finished = job.waitUntilFinished(qe, timeoutMs + WAIT_LISTENER_GRACE_MS);
    finished.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<typeof WAIT_TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(WAIT_TIMED_OUT), timeoutMs);
    });
    try {
      const outcome = await Promise.race([finished, timedOut]);
      if (outcome === WAIT_TIMED_OUT) return { state: 'pending', jobId: job.id! };
      return { state: 'completed', jobId: job.id!, result: outcome as JobResult<N> };
    } catch (err) {
      throw new JobFailedError(name, job.id!, (err as Error).message ?? String(err));
    } finally {
      clearTimeout(timer);
    }
  }

  private async eventsReady(qe: QueueEvents): Promise<void> {
    const ready = qe.waitUntilReady();
    ready.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new BackendUnavailableError('redis', new Error('the queue events connection did not become ready'))),
        this.opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([ready, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.events.values()].map((e) => e.close()));
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    this.ownConnection?.disconnect();
  }
}
