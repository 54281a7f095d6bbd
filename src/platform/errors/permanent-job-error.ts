/**
 * A job failure that no retry can fix (bad input, a state that can never succeed). Services that
 * jobs call may throw it; the worker boundary (src/bin/worker-runtime.ts) maps it to a failure that
 * is not retried, where any other error is retried with the job's backoff.
 */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}
