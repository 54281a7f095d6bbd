/**
 * The order vitest starts test files in (`sequence.sequencer` in vitest.config.ts): the files of the
 * slow tiers (test/tiers.ts) first, then the rest; within each group vitest's own order (longest
 * first by the durations of an earlier run on this checkout, else largest file first).
 *
 * Files run in parallel, so a run lasts at least as long as the file started last takes. Without an
 * earlier run's durations (CI installs node_modules afresh, and vitest keeps them there) vitest would
 * start the largest files first, and the slow tiers' files are mostly short (a drill or a fuzz part
 * is a few lines calling a shared helper): they would start last and run alone on an otherwise
 * finished suite. Started first, they overlap with the many short files, which then fill the end.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { slowFirstRank } from '../tiers.js';

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = new Map(sorted.map((f) => [f, slowFirstRank(f.moduleId)]));
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return sorted.sort((a, b) => rank.get(a)! - rank.get(b)!);
  }
}
