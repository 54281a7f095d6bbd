/**
 * The order vitest starts test files in (`sequence.sequencer` in vitest.config.ts). The files of the
 * slow tiers (test/tiers.ts) are dealt evenly among the quick files, one tier after the other
 * (launcher, drills, fuzz, browser, slow, then again), so that a run starts its longest files early
 * and keeps mixing files that mostly wait (a drill waiting for a killed worker's lock to run out, a
 * launcher starting its processes) with files that mostly compute (an API fuzz part, the quick
 * integration files) on its three workers.
 *
 * vitest's own order (kept within the quick files and within each tier) is the longest first by an
 * earlier run's durations, kept under node_modules/.vite, else the largest file first. CI installs
 * node_modules afresh, and a drill or a fuzz part is a file of a few lines calling a shared helper:
 * in vitest's order they would start last, together, and the run would end with only them running.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { slowTierOf } from '../tiers.js';

const dealOrder = ['launcher', 'drills', 'fuzz', 'browser', 'slow'] as const;
/**
 * The share of the quick files the slow ones are dealt among: the last slow file (a drill may take a
 * minute) starts with the last 40 % of the quick files (seconds each) still to run beside it.
 */
const SPREAD = 0.6;

/** `sorted` (vitest's order) with the slow tiers' files dealt in among the quick ones. */
export function interleave<T>(sorted: T[], fileOf: (f: T) => string): T[] {
  const quick = sorted.filter((f) => slowTierOf(fileOf(f)) === undefined);
  const byTier = dealOrder.map((tier) => sorted.filter((f) => slowTierOf(fileOf(f)) === tier));
  const slow: T[] = [];
  for (let round = 0; slow.length < sorted.length - quick.length; round++) for (const list of byTier) if (round < list.length) slow.push(list[round]);
  // Slow file i starts before quick file floor(i * SPREAD * quick / slow): the first one first.
  const out: T[] = [];
  let q = 0;
  slow.forEach((file, i) => {
    const before = Math.floor((i * SPREAD * quick.length) / slow.length);
    while (q < before) out.push(quick[q++]);
    out.push(file);
  });
  out.push(...quick.slice(q));
  return out;
}

export class InterleavedSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return interleave(await super.sort(files), (f) => f.moduleId);
  }
}
