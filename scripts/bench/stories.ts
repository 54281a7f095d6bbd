/**
 * Story assignment quality on the labelled real headlines of test/data/stories/headlines.jsonl
 * (see SOURCES.md there): the assigner of src/stories/rules (replay on scratch state, headlines
 * only, then with the feed summaries the sources carried) against the hand labels, and as the
 * baseline today's pairwise provenance match (headlineSimilarity >= HEADLINE_MATCH_THRESHOLD
 * within 30 days: each item joins the story of its most similar earlier item).
 *   npm run bench:stories
 * With --sweep=0.35,0.4,0.45, the B-cubed figures of each half at each threshold instead (how the
 * threshold was chosen: on the tuning half). With --load, the assigner at size instead
 * (scripts/bench/lib/stories-load.ts).
 */
import { HEADLINE_MATCH_THRESHOLD, headlineSimilarity } from '../../src/provenance/rules/headline-similarity.js';
import { evaluate, type Evaluation, type Scores } from '../../src/stories/rules/evaluation.js';
import type { ReplayItem } from '../../src/stories/rules/replay.js';
import { evaluateAssigner, half, headlinesOnly, readLabelled } from './lib/stories-labelled.js';
import { storiesLoad } from './lib/stories-load.js';

const BASELINE_WINDOW_MS = 30 * 24 * 3600_000;

function baseline(items: readonly ReplayItem[]): number[] {
  const order = items.map((it, i) => ({ i, at: it.input.at })).sort((a, b) => a.at - b.at || a.i - b.i);
  const out: number[] = new Array<number>(items.length);
  const done: { i: number; at: number }[] = [];
  let next = 1;
  for (const cur of order) {
    let best = -1;
    let bestScore = 0;
    for (const prev of done) {
      if (cur.at - prev.at > BASELINE_WINDOW_MS) continue;
      const s = headlineSimilarity(items[cur.i]!.input.title, items[prev.i]!.input.title);
      if (s >= HEADLINE_MATCH_THRESHOLD && s > bestScore) {
        best = prev.i;
        bestScore = s;
      }
    }
    out[cur.i] = best >= 0 ? out[best]! : next++;
    done.push(cur);
  }
  return out;
}

const fmt = (s: Scores): string => `P ${s.precision.toFixed(3)}  R ${s.recall.toFixed(3)}  F1 ${s.f1.toFixed(3)}`;

function print(name: string, e: Evaluation): void {
  console.log(`${name}  (${e.predictedStories} predicted stories)`);
  console.log(`  pairwise                      ${fmt(e.pairwise)}`);
  console.log(`  B-cubed, multi-item stories   ${fmt(e.bcubedMulti)}`);
  console.log(`  B-cubed, all items            ${fmt(e.bcubedAll)}`);
}

async function main(): Promise<void> {
  const all = readLabelled();
  const bare = headlinesOnly(all);
  const first = evaluateAssigner(bare);
  console.log(`${first.items} labelled headlines, ${first.trueStories} true stories, ${first.multiItemStories} with more than one item\n`);
  print('stories assigner, headlines only', first);
  print('stories assigner, headlines + feed summaries', evaluateAssigner(all));
  print(`baseline: headlineSimilarity >= ${HEADLINE_MATCH_THRESHOLD} within 30 days`, evaluate(all.truth, baseline(all.items).map(String)));
  for (const which of ['tune', 'check'] as const) {
    const part = half(bare, which);
    const e = evaluateAssigner(part);
    const parity = which === 'tune' ? 'even' : 'odd';
    print(`${which} half (items of ${parity}-numbered stories: ${e.items}, ${e.multiItemStories} multi-item stories), headlines only`, e);
    print(`  its baseline`, evaluate(part.truth, baseline(part.items).map(String)));
  }
}

function sweep(thresholds: readonly number[]): void {
  const bare = headlinesOnly(readLabelled());
  for (const which of ['tune', 'check'] as const) {
    const part = half(bare, which);
    for (const t of thresholds) {
      const e = evaluateAssigner(part, t);
      console.log(`${which} half, threshold ${t}: B-cubed multi-item ${fmt(e.bcubedMulti)}; all items ${fmt(e.bcubedAll)}`);
    }
  }
}

const sweepArg = process.argv.find((a) => a.startsWith('--sweep='));
if (process.argv.includes('--load')) await storiesLoad();
else if (sweepArg) sweep(sweepArg.slice('--sweep='.length).split(',').map(Number));
else await main();
