/**
 * What the story assigner gets wrong on the labelled headlines (test/data/stories/headlines.jsonl):
 * for each true multi-item story split over several predicted stories, its items with their
 * predicted story and the best similarity of each item with the items of the other parts; then
 * the predicted stories that join items of several true stories. Headlines only, as the bench.
 *   npx tsx scripts/bench/stories-misses.ts [--threshold=0.5]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { itemFeatures } from '../../src/stories/rules/features.js';
import { parseReplayLines, replayStories } from '../../src/stories/rules/replay.js';
import { idf, itemSimilarity } from '../../src/stories/rules/similarity.js';

const DATA = path.resolve(import.meta.dirname, '../../test/data/stories/headlines.jsonl');
const arg = process.argv.find((a) => a.startsWith('--threshold='));
const threshold = arg ? Number(arg.split('=')[1]) : undefined;

const text = readFileSync(DATA, 'utf8');
const rows = text
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { id: string; story: string; source: string });
const { items } = parseReplayLines(text);
const inputs = items.map((it) => ({ ...it.input, text: null }));
const predicted = replayStories(
  items.map((it, i) => ({ ...it, input: inputs[i]! })),
  threshold,
);
const features = inputs.map((i) => itemFeatures(i));
// Document frequencies over the whole set: close to what the assigner had by the end of the replay.
const df = new Map<string, number>();
for (const f of features) for (const w of f.words) df.set(w, (df.get(w) ?? 0) + 1);
const weight = (w: string): number => idf(df.get(w) ?? 0, features.length);

const byTruth = new Map<string, number[]>();
rows.forEach((r, i) => byTruth.set(r.story, [...(byTruth.get(r.story) ?? []), i]));
const show = (i: number): string => `${rows[i]!.id} [${predicted[i]}] ${inputs[i]!.source ?? ''}: ${inputs[i]!.title}`;

console.log('== true stories split over several predicted stories');
let missed = 0;
for (const [label, members] of byTruth) {
  const parts = new Set(members.map((i) => predicted[i]));
  if (parts.size < 2) continue;
  missed += 1;
  console.log(`\n${label} (${members.length} items, ${parts.size} parts)`);
  for (const i of members) {
    let best = 0;
    for (const j of members) if (predicted[j] !== predicted[i]) best = Math.max(best, itemSimilarity(features[i]!, features[j]!, weight).score);
    console.log(`  ${best.toFixed(2)}  ${show(i)}  {${features[i]!.words.join(' ')}}`);
  }
}
console.log(`\n${missed} split stories`);
console.log('\n== predicted stories joining several true stories');
const byPred = new Map<number, number[]>();
predicted.forEach((p, i) => byPred.set(p, [...(byPred.get(p) ?? []), i]));
for (const members of byPred.values()) {
  if (new Set(members.map((i) => rows[i]!.story)).size < 2) continue;
  console.log('');
  for (const i of members) console.log(`  ${rows[i]!.story}  ${show(i)}`);
}
