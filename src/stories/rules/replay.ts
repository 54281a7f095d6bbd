/**
 * Replay: assign a list of items with the production rules on scratch state (never the live
 * data), in publication order (ties in input order), and answer each item's story in input order.
 * Used by `stories replay`, by the quality bench and by the unit tests.
 *
 * `parseReplayLines` reads JSON lines ({"id", "title", "url", "source", "published_at", optional
 * "summary"}) and reports every bad line with its number; blank lines are skipped.
 */
import type { StoryItemInput } from './features.js';
import { MemoryStoryState } from './memory-state.js';

export interface ReplayItem {
  id: unknown;
  input: StoryItemInput;
}

interface ReplayLineError {
  line: number;
  message: string;
}

export function replayStories(items: readonly ReplayItem[], threshold?: number): number[] {
  const order = items.map((it, i) => ({ i, at: it.input.at })).sort((a, b) => a.at - b.at || a.i - b.i);
  const state = new MemoryStoryState(threshold);
  const out: number[] = new Array<number>(items.length);
  for (const { i } of order) out[i] = state.assign(items[i]!.input).storyId;
  return out;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

function parseLine(text: string): ReplayItem | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  const title = str(o.title);
  if (title === null) return 'missing "title" (a non-empty string)';
  if (!('id' in o)) return 'missing "id"';
  const at = typeof o.published_at === 'string' ? Date.parse(o.published_at) : NaN;
  if (!Number.isFinite(at)) return 'missing or invalid "published_at" (an ISO 8601 time)';
  return { id: o.id, input: { title, url: str(o.url), source: str(o.source), at, text: str(o.summary) } };
}

export function parseReplayLines(text: string): { items: ReplayItem[]; errors: ReplayLineError[] } {
  const items: ReplayItem[] = [];
  const errors: ReplayLineError[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const r = parseLine(line);
    if (typeof r === 'string') errors.push({ line: i + 1, message: r });
    else items.push(r);
  });
  return { items, errors };
}
