/**
 * Vote rules shared by article votes and yap votes. Pure. A vote is 1 (up), -1 (down) or 0 (clear);
 * a user has at most one stored vote per article or yap, and the counters move by the difference.
 */
import { OPEN_STATUSES } from './state.js';

export type VoteWeight = -1 | 0 | 1;

/** What a vote does to the caller's stored vote row (`stored` is its weight, undefined when none). */
export type VoteWrite = { kind: 'none' } | { kind: 'delete' } | { kind: 'insert' | 'update'; weight: -1 | 1 };

export function voteWrite(stored: number | undefined, weight: VoteWeight): VoteWrite {
  if (weight === 0) return { kind: stored === undefined ? 'none' : 'delete' };
  if (stored === undefined) return { kind: 'insert', weight };
  return stored === weight ? { kind: 'none' } : { kind: 'update', weight };
}

/** The change of votes_cast (votes that are not 0) when `previous` becomes `weight`. */
export function castDelta(previous: VoteWeight, weight: VoteWeight): number {
  return (weight !== 0 ? 1 : 0) - (previous !== 0 ? 1 : 0);
}

/** Whether an article in this status takes votes, yaps and yap votes. */
export function takesEngagement(status: string): boolean {
  return (OPEN_STATUSES as readonly string[]).includes(status);
}
