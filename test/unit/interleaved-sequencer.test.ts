import { readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { interleave } from '../support/interleaved-sequencer.js';
import { slowTierOf } from '../tiers.js';

const files = ['unit', 'integration', 'e2e'].flatMap((d) =>
  readdirSync(`test/${d}`)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `/repo/test/${d}/${f}`),
);

it('keeps every file once, starts with a launcher file and deals the slow tiers evenly among the first quick files', () => {
  const order = interleave(files, (f) => f);
  expect([...order].sort()).toEqual([...files].sort());
  expect(slowTierOf(order[0])).toBe('launcher');
  expect(order.slice(0, 5).map(slowTierOf)).toContain(undefined);
  const slowAt = order.flatMap((f, i) => (slowTierOf(f) ? [i] : []));
  const slowCount = slowAt.length;
  expect(slowCount).toBeGreaterThan(20);
  // Evenly over the first 60 % of the quick files: no gap between two slow files is more than twice the average one, and quick files end the run.
  const gaps = slowAt.slice(1).map((at, i) => at - slowAt[i]);
  expect(Math.max(...gaps)).toBeLessThanOrEqual((2 * order.length) / slowCount);
  expect(slowAt.at(-1)!).toBeLessThan(order.length - 0.3 * (order.length - slowCount));
  // The tiers take turns: the first five slow files are of five different tiers.
  expect(new Set(slowAt.slice(0, 5).map((i) => slowTierOf(order[i]))).size).toBe(5);
  // Within the quick files and within a tier, the given order stays.
  const quick = files.filter((f) => !slowTierOf(f));
  expect(order.filter((f) => !slowTierOf(f))).toEqual(quick);
  const drills = files.filter((f) => slowTierOf(f) === 'drills');
  expect(order.filter((f) => slowTierOf(f) === 'drills')).toEqual(drills);
});
