/**
 * Waiting in tests: poll for the condition a test needs instead of sleeping a fixed time (a fixed
 * sleep is either too short on a loaded machine or longer than needed on a quiet one).
 *
 * - `waitFor(cond)`: resolves with the first truthy value `cond` returns (sync or async), polling
 *   every `interval` ms; fails with `what` after `timeout` ms.
 * - `quietFor(ms)`: a fixed wait that IS the behaviour under test ("nothing (more) arrives within
 *   ms"): there is no condition to poll for the absence of something, so the wait is the check
 *   window. Every call says, next to it, what must not happen in that window.
 */
interface WaitOptions {
  /** Give up after this many ms (default 5000). */
  timeout?: number;
  /** Poll every this many ms (default 10). */
  interval?: number;
  /** What is awaited, for the timeout message. */
  what?: string;
}

export async function waitFor<T>(cond: () => T | Promise<T>, o: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeout = o.timeout ?? 5000;
  const until = Date.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v as NonNullable<T>;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > until) {
      const why = lastError instanceof Error ? ` (last attempt: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${o.what ?? 'the condition'}${why}`);
    }
    await new Promise((r) => setTimeout(r, o.interval ?? 10));
  }
}

/** A check window: nothing the test forbids may happen within `ms` (see the module comment). */
export function quietFor(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
