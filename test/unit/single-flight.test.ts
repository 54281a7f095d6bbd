import { describe, expect, it } from 'vitest';
import { nextFlight, singleFlight, type NextFlight } from '../../src/platform/single-flight.js';

/** A computation that returns how many had started when it started, and settles when told. */
function counter() {
  let started = 0;
  const pending: (() => void)[] = [];
  const run = () => {
    const n = ++started;
    return new Promise<number>((resolve) => pending.push(() => resolve(n)));
  };
  const settleNext = async () => {
    pending.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { run, settleNext, started: () => started };
}

describe('singleFlight and nextFlight', () => {
  it('singleFlight: a caller arriving mid-computation shares the one already running', async () => {
    const c = counter();
    const inflight = new Map<string, Promise<number>>();
    const a = singleFlight(inflight, 'k', c.run);
    const b = singleFlight(inflight, 'k', c.run);
    await c.settleNext();
    expect([await a, await b]).toEqual([1, 1]);
  });

  it('nextFlight: callers arriving mid-computation share one that starts after them', async () => {
    const c = counter();
    const state: NextFlight<number> = { running: null, next: null };
    const first = nextFlight(state, c.run);
    const late = [nextFlight(state, c.run), nextFlight(state, c.run), nextFlight(state, c.run)];
    expect(c.started()).toBe(1); // the late callers wait: no second computation yet
    await c.settleNext();
    expect(await first).toBe(1);
    expect(c.started()).toBe(2); // one computation for all three, started after the first settled
    const later = nextFlight(state, c.run); // arrives while the second runs: waits for a third
    await c.settleNext();
    expect(await Promise.all(late)).toEqual([2, 2, 2]);
    await c.settleNext();
    expect(await later).toBe(3);
  });

  it('nextFlight: a failed computation fails its callers only; the next one runs', async () => {
    const state: NextFlight<number> = { running: null, next: null };
    let calls = 0;
    const run = () => (++calls === 1 ? Promise.reject(new Error('boom')) : Promise.resolve(calls));
    const a = nextFlight(state, run);
    const b = nextFlight(state, run);
    await expect(a).rejects.toThrow('boom');
    expect(await b).toBe(2);
  });
});
