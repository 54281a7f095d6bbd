/**
 * The shape of one job. Nothing in jobs/ imports bullmq: the worker boundary (src/worker-runtime.ts)
 * parses payloads with `payload`, maps PermanentJobError to a failure that is not retried, and
 * applies `options`.
 */
import type { z } from 'zod';
import type { Config } from '../src/config.js';
import type { Db } from '../src/db.js';
import type { EventPublisher } from '../src/events.js';
import type { Logger } from '../src/logger.js';
import type { Redis } from '../src/redis.js';

export interface JobDeps {
  config: Config;
  db: Db;
  redis: Redis;
  events: EventPublisher;
  log: Logger;
  /** Enqueue a follow-up job (same registry as the web process uses). */
  enqueue: (name: string, payload: unknown, opts?: { delayMs?: number; jobId?: string }) => Promise<string>;
}

export interface JobOptions {
  /** Total tries including the first (exponential backoff between them). */
  attempts: number;
  backoffMs: number;
  concurrency: number;
  /** A deterministic id makes enqueueing idempotent: BullMQ ignores a second add with the same id. */
  jobId?: (payload: any) => string;
}

export interface JobDefinition<S extends z.ZodType = z.ZodType, R = unknown> {
  name: string;
  payload: S;
  options: JobOptions;
  run(payload: z.output<S>, deps: JobDeps, ctx: { attempt: number; jobId: string }): Promise<R>;
}

export function defineJob<S extends z.ZodType, R>(def: JobDefinition<S, R>): JobDefinition<S, R> {
  return def;
}

/** Bad input or a state that can never succeed: fail now, do not retry. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

export const defaultJobOptions: JobOptions = { attempts: 5, backoffMs: 1000, concurrency: 8 };
