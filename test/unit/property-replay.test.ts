/**
 * A property-test failure can be replayed: its message carries the seed and the counterexample's
 * path, and a run given that seed and path (what FC_SEED / FC_PATH set for a whole run, see
 * test/support/property.ts) fails at once on the same counterexample.
 */
import { expect, it } from 'vitest';
import fc, { replayLines } from '../support/property.js';

const failing = () => fc.property(fc.integer({ min: 0, max: 10_000 }), fc.string(), (n, s) => n + s.length < 5000);

function failureOf(run: () => void): string {
  try {
    run();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the property did not fail');
}

it('a failure prints its seed and path, and that seed and path replay the same counterexample first time', () => {
  const message = failureOf(() => fc.assert(failing(), { seed: 42 }));
  const m = /\{ seed: (-?\d+), path: "([\d:]+)"/.exec(message);
  expect(m, message).not.toBeNull();
  const counterexample = /Counterexample: (.*)/.exec(message)![1];
  const replay = fc.check(failing(), { seed: Number(m![1]), path: m![2], endOnFailure: true });
  expect(replay.failed).toBe(true);
  expect(replay.numRuns).toBe(1);
  expect(fc.stringify(replay.counterexample)).toBe(counterexample);
});

it('the one-line report of a caught failure (fuzz-api) keeps the seed and path', () => {
  const line = replayLines(failureOf(() => fc.assert(failing(), { seed: 7 })));
  expect(line).toMatch(/^Property failed after \d+ tests \| \{ seed: 7, path: "[\d:]+"/);
  expect(line).toContain('FC_SEED=');
});

it('the one-line report says what a property threw (a socket error, a hang) and shows the counterexample', async () => {
  const err = await fc
    .assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 100 }), async (n) => {
        if (n > 50) throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
      }),
      { seed: 3, endOnFailure: true },
    )
    .then(
      () => null,
      (e: unknown) => e,
    );
  const line = replayLines(err);
  expect(line).toMatch(/\| threw: Error ECONNRESET: read ECONNRESET \|/);
  expect(line).toMatch(/\| Counterexample: \[\d+\] \|/);
  expect(line).toMatch(/\{ seed: 3, path: "[\d:]+"/);
});
