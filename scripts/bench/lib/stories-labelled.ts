/**
 * The labelled real headlines of test/data/stories/headlines.jsonl (see SOURCES.md there) and the
 * split used to guard the assignment rules against fitting them: the true stories numbered in order
 * of first appearance, the items of even-numbered stories form the tuning half, those of
 * odd-numbered ones the check half. Each half is replayed on its own scratch state.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { evaluate, type Evaluation } from '../../../src/stories/rules/evaluation.js';
import { parseReplayLines, replayStories, type ReplayItem } from '../../../src/stories/rules/replay.js';

const DATA = path.resolve(import.meta.dirname, '../../../test/data/stories/headlines.jsonl');

interface Labelled {
  items: ReplayItem[];
  truth: string[];
}

export function readLabelled(): Labelled {
  const lines = readFileSync(DATA, 'utf8');
  const { items, errors } = parseReplayLines(lines);
  if (errors.length > 0) throw new Error(`bad lines in ${DATA}: ${JSON.stringify(errors)}`);
  const truth = lines
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { story: string }).story);
  return { items, truth };
}

/** The same items without page text or summaries: what replay of bare headlines has. */
export function headlinesOnly(l: Labelled): Labelled {
  return { truth: l.truth, items: l.items.map((it) => ({ ...it, input: { ...it.input, text: null } })) };
}

/** The tuning half (items of even-numbered true stories) or the check half (odd-numbered). */
export function half(l: Labelled, which: 'tune' | 'check'): Labelled {
  const number = new Map<string, number>();
  for (const t of l.truth) if (!number.has(t)) number.set(t, number.size);
  const keep = l.truth.map((t) => number.get(t)! % 2 === (which === 'tune' ? 0 : 1));
  return { items: l.items.filter((_, i) => keep[i]), truth: l.truth.filter((_, i) => keep[i]) };
}

export function evaluateAssigner(l: Labelled, threshold?: number): Evaluation {
  return evaluate(l.truth, replayStories(l.items, threshold).map(String));
}
