/**
 * The relay waker's coalescing (src/relay/waker.ts): a burst of wake-ups costs one enqueue at once
 * and one at the end of the spacing, a wake-up after a quiet spell enqueues at once, and no wake-up
 * is lost. The waker's connection is pointed at a closed port: only wake() is exercised here
 * (test/integration/event-relay.test.ts covers the outbox probes end to end, and a lost connection).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/platform/logger.js';
import { RelayWaker } from '../../src/relay/waker.js';
import { quietFor, waitFor } from '../support/wait.js';

const silent = { warn: () => undefined, info: () => undefined, error: () => undefined } as unknown as Logger;
const wakers: RelayWaker[] = [];

function waker(spacingMs: number, enqueue: () => Promise<unknown> = () => Promise.resolve()) {
  const calls: number[] = [];
  const w = new RelayWaker({
    databaseUrl: 'postgres://nobody:nothing@127.0.0.1:1/none',
    log: silent,
    spacingMs,
    wake: () => {
      calls.push(performance.now());
      return enqueue();
    },
  });
  wakers.push(w);
  return { w, calls };
}

afterEach(async () => {
  await Promise.all(wakers.splice(0).map((w) => w.close()));
});

describe('relay waker', () => {
  it('turns a burst of wake-ups into one enqueue now and one at the end of the spacing', async () => {
    const { w, calls } = waker(80);
    const t0 = performance.now();
    for (let i = 0; i < 50; i++) w.wake();
    expect(calls).toHaveLength(1);
    await waitFor(() => calls.length === 2, { what: 'the trailing enqueue' });
    expect(calls[1] - t0).toBeGreaterThanOrEqual(75);
    // Nothing else was pending: no third enqueue follows.
    await quietFor(150);
    expect(calls).toHaveLength(2);
  });

  it('enqueues at once after a quiet spell', async () => {
    const { w, calls } = waker(30);
    w.wake();
    await quietFor(60); // longer than the spacing: the next wake-up must not wait
    w.wake();
    expect(calls).toHaveLength(2);
  });

  it('keeps a wake-up that arrives while an enqueue is in flight, and makes it once the enqueue ends', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    let first = true;
    const { w, calls } = waker(0, () => {
      if (!first) return Promise.resolve();
      first = false;
      return slow;
    });
    w.wake();
    w.wake();
    w.wake();
    expect(calls).toHaveLength(1);
    await quietFor(30); // the first enqueue is still in flight: the others wait for it
    expect(calls).toHaveLength(1);
    release();
    await waitFor(() => calls.length === 2, { what: 'the follow-up enqueue' });
    await quietFor(50);
    expect(calls).toHaveLength(2);
  });

  it('makes no enqueue after close, even one that was waiting for the spacing', async () => {
    const { w, calls } = waker(40);
    w.wake();
    w.wake();
    await w.close();
    await quietFor(80);
    expect(calls).toHaveLength(1);
  });
});
