/**
 * One computation per key at a time: a caller asking for a key that is being computed shares the
 * promise already running (its result or its error) instead of starting another. The key leaves
 * `inflight` when the computation settles, so the next call computes afresh.
 */
export function singleFlight<T>(inflight: Map<string, Promise<T>>, key: string, run: () => Promise<T>): Promise<T> {
  let p = inflight.get(key);
  if (!p) {
    p = run().finally(() => inflight.delete(key));
    inflight.set(key, p);
  }
  return p;
}
