/**
 * The shape of one job. Nothing in jobs/ imports bullmq: the worker boundary (src/bin/worker-runtime.ts)
 * parses payloads with `payload`, maps PermanentJobError (src/platform/errors/permanent-job-error.ts)
 * to a failure that is not retried, and applies `options`.
 */
import { z } from 'zod';
import type { Config } from '../src/platform/config.js';
import type { Db } from '../src/platform/db.js';
import type { EventPublisher } from '../src/platform/events/events.js';
import type { Logger } from '../src/platform/logger.js';
import type { Redis } from '../src/platform/redis.js';
import type { JobName, JobPayload } from './index.js';

export interface EnqueueOptions {
  delayMs?: number;
  /**
   * Deduplication id: while a job with this id waits, another add is dropped; while one is active,
   * the add is kept as one follow-up run after it (BullMQ keepLastIfActive), so a wake-up that
   * arrives during a run is never lost.
   */
  dedupeId?: string;
}

/**
 * Enqueue a job by name, its payload type-checked against that job's schema. The job id is not an
 * option: each job derives it from its payload with its own `options.jobId` (one scheme per job).
 */
export type Enqueue = <N extends JobName>(name: N, payload: JobPayload<N>, opts?: EnqueueOptions) => Promise<string>;

export interface JobDeps {
  config: Config;
  db: Db;
  redis: Redis;
  events: EventPublisher;
  log: Logger;
  /** Enqueue a follow-up job (same registry and typing as the web process's QueueClient.enqueue). */
  enqueue: Enqueue;
}

export interface JobOptions<P = any> {
  /** Total tries including the first (exponential backoff between them). */
  attempts: number;
  backoffMs: number;
  concurrency: number;
  /**
   * Concurrency read from the configuration instead: not bounded by WORKER_CONCURRENCY (for jobs that
   * mostly wait on the network, such as webhook deliveries, where one slot per hanging endpoint must
   * not starve the others).
   */
  concurrencyFromConfig?: (config: Config) => number;
  /**
   * The job's one id scheme, from its (parsed) payload. A deterministic id makes enqueueing
   * idempotent: BullMQ ignores a second add with the same id. Undefined: BullMQ numbers the job.
   */
  jobId?: (payload: P) => string | undefined;
}

interface JobDefinition<S extends z.ZodType = z.ZodType, R = unknown> {
  name: string;
  payload: S;
  options: JobOptions<z.output<S>>;
  run(payload: z.output<S>, deps: JobDeps, ctx: { attempt: number; jobId: string }): Promise<R>;
}

export function defineJob<S extends z.ZodType, R>(def: JobDefinition<S, R>): JobDefinition<S, R> {
  return def;
}

export const defaultJobOptions: JobOptions = { attempts: 5, backoffMs: 1000, concurrency: 8 };

/** The payload of a job that takes none: a clock sweep or prune, enqueued with {}. */
const noPayload = z.object({}).default({});

/**
 * A clock job that takes no payload: one try (the next tick is its retry) and one run at a time, so
 * two ticks never sweep the same rows at once.
 */
export function defineSweep<R>(def: { name: string; run(deps: JobDeps): Promise<R> }) {
  return defineJob({
    name: def.name,
    payload: noPayload,
    options: { ...defaultJobOptions, attempts: 1, concurrency: 1 },
    run: (_p, deps) => def.run(deps),
  });
}
