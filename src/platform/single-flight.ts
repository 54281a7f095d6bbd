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

/** The state of nextFlight: the computation running, and the one that will start when it settles. */
export interface NextFlight<T> {
  running: Promise<T> | null;
  next: Promise<T> | null;
}

/**
 * One computation at a time, each starting after its callers asked: a caller arriving while one
 * runs waits for the next, which starts when the running one settles and answers every caller that
 * arrived meanwhile. Unlike singleFlight, a result never predates the call (a caller that has just
 * written sees its write), and the work is still at most one computation per round trip.
 */
export function nextFlight<T>(state: NextFlight<T>, run: () => Promise<T>): Promise<T> {
  const start = () => {
    const p = run();
    state.running = p;
    p.finally(() => {
      if (state.running === p) state.running = null;
    }).catch(() => undefined);
    return p;
  };
  if (!state.running) return start();
  state.next ??= state.running
    .catch(() => undefined)
    .then(() => {
      state.next = null;
      return start();
    });
  return state.next;
}
