/**
 * The per-vote credibility update: when a vote is cast, changed or cleared, its weight row is
 * decided from its voter alone (account age and type, click-through, the month's published flags and
 * staff decisions that name the voter) with the same rule the full recompute applies to every vote
 * (rules/vote-weight.ts), so boards and the earnings estimate see it before the nightly recompute.
 * One statement reads the vote with all of that and whether it has a weight row; a second writes or
 * deletes that row, and is not sent when the vote keeps full weight and has none (most votes).
 * What needs the whole month (new rings, bursts, co-voting) waits for that recompute, which
 * re-decides every vote it read and keeps rows written after its cut-off (queries.ts, publishRun).
 */
import type { Db } from '../platform/db.js';
import { voteContextFrom, voteWeight } from './rules/vote-weight.js';
import { deleteVoteWeight, voteFacts, writeVoteWeight, type VoteKind } from './vote-queries.js';

interface VoteUpdate {
  /** The weight written (1: no row), or null when the vote no longer exists (its row was removed). */
  weight: number | null;
  reasons: string[];
}

export async function updateVoteCredibility(db: Db, kind: VoteKind, targetId: number, userId: number): Promise<VoteUpdate> {
  const facts = await voteFacts(db, kind, targetId, userId);
  // A cleared vote, or a vote on one's own item (the recompute reads neither): no weight row.
  if (!facts || facts.vote.authorId === userId) {
    if (!facts || facts.weighted) await deleteVoteWeight(db, kind, targetId, userId);
    return { weight: null, reasons: [] };
  }
  const { vote, month } = facts;
  const ctx = voteContextFrom(vote, facts);
  const w = ctx ? voteWeight(vote, ctx) : { ...vote, weight: 1, reasons: [] };
  // Full weight is the absence of a row: nothing to write when there is none.
  if (w.weight < 1 || facts.weighted) await writeVoteWeight(db, month, { kind, targetId, userId, weight: w.weight, reasons: w.reasons });
  return { weight: w.weight, reasons: w.reasons };
}
