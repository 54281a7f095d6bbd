/**
 * Wire promotion by corroboration: when an assignment makes a story newly covered by
 * `minSources` independent sources, the story gets one queue item. Pure.
 */

/** Only wire items observed within this many hours trigger it (as for the score-based promotion). */
export const CORROBORATION_HOURS = 24;

interface CorroborationInput {
  kind: 'article' | 'wire';
  /** The story's independent sources before and after the assignment (copies not counted). */
  sourcesBefore: number;
  sourcesAfter: number;
  /** WIRE_PROMOTE_MIN_SOURCES; 0 turns the rule off. */
  minSources: number;
  /** The triggering item's observation time and the assigner's clock. */
  observedAt: Date;
  now: Date;
}

/**
 * True when this assignment is the one that made the story corroborated: a wire item, recent,
 * which took the story's independent sources from below `minSources` to at least `minSources`.
 * An assignment that leaves the count where it was (a copy, a second item of one source) or that
 * adds a source past the threshold is not; neither is a backfill of old items.
 */
export function corroborationReached(i: CorroborationInput): boolean {
  if (i.minSources <= 0 || i.kind !== 'wire') return false;
  if (i.now.getTime() - i.observedAt.getTime() > CORROBORATION_HOURS * 3600_000) return false;
  return i.sourcesBefore < i.minSources && i.sourcesAfter >= i.minSources;
}
