/**
 * The credibility weight of one vote from what is known about its voter (pure). The full recompute
 * calls it for every vote of the month with the flags it just detected; the per-vote update calls it
 * for one vote as it is cast, with the month's published flags and the staff decisions
 * (voteContextFrom), so the two agree on a vote whenever they see the same flags.
 */
import { flagKey, type Account, type Flag, type Override, type Vote, type Weighted } from './model.js';
import { REASONS } from './reasons.js';
import { T } from './thresholds.js';

/** What the rules know about a vote's voter. */
export interface VoteContext {
  account: Account | undefined;
  /** Staff confirmed the voter as part of a manipulating group (or the account itself). */
  confirmed: boolean;
  /** The voter's active (not cleared) flags of the month. */
  flags: readonly Flag[];
  /** This vote belongs to a burst on its item. */
  burstVote: boolean;
  /** The voter rarely opens the articles it votes on. */
  noClick: boolean;
}

/** A voter with at least T.noClickMinVotes article votes in the month who opened under T.noClickMaxShare of them. */
export function isNoClickVoter(articleVotes: number, clicked: number): boolean {
  return articleVotes >= T.noClickMinVotes && clicked < T.noClickMaxShare * articleVotes;
}

function ageFactor(createdAt: number | undefined, at: number): [number, string] | null {
  if (createdAt === undefined || at < createdAt) return null;
  if (at - createdAt < T.newAccountMs) return [T.newAccountFactor, REASONS.newAccount];
  if (at - createdAt < T.youngAccountMs) return [T.youngAccountFactor, REASONS.youngAccount];
  return null;
}

export function voteWeight(v: Vote, c: VoteContext): Weighted {
  const out: Weighted = { kind: v.kind, targetId: v.targetId, userId: v.userId, weight: 1, reasons: [] };
  const apply = (f: number, reason: string) => {
    out.weight *= f;
    out.reasons.push(reason);
  };
  if (c.confirmed) apply(0, REASONS.confirmed);
  if (c.account?.type === 'bot') apply(0, REASONS.bot);
  const age = ageFactor(c.account?.createdAt, v.at);
  if (age) apply(...age);
  if (c.burstVote) apply(0, REASONS.burst);
  if (v.kind === 'article_vote' && !v.clicked && c.noClick) apply(T.noClickFactor, REASONS.noClick);
  for (const f of c.flags) {
    if (f.kind === 'cohort') apply(T.cohortFactor, REASONS.cohort);
    else if (f.kind === 'indiscriminate') apply(T.indiscriminateFactor, REASONS.indiscriminate);
    else if (f.kind === 'co_voting') apply(1 / f.members.length, REASONS.coVoting);
    else if ((f.kind === 'ring' || f.kind === 'reciprocal_pair') && v.authorId !== null && f.members.includes(v.authorId)) apply(0, REASONS.ring);
  }
  return out;
}

/** What the per-vote update reads about a voter: the month's published flags and staff decisions that name it, and its click-through counts. */
interface VoterFacts {
  account: Account | undefined;
  flags: readonly Flag[];
  overrides: readonly Override[];
  articleVotes: number;
  clicked: number;
}

/**
 * A vote's context from the month's published flags (the latest full recompute's): flags staff
 * cleared are left out; staff's confirmation zeroes the vote; a voter cleared somewhere and
 * confirmed nowhere counts in full (null: no context, the vote's weight is 1, as rules/overrides.ts
 * makes it in the recompute). A burst flag names the item it burst on: a member's vote on that item
 * is a burst vote.
 */
export function voteContextFrom(v: Vote, f: VoterFacts): VoteContext | null {
  const mine = f.overrides.filter((o) => o.members.includes(v.userId));
  const confirmed = mine.some((o) => o.decision === 'confirmed');
  if (!confirmed && mine.some((o) => o.decision === 'cleared')) return null;
  const cleared = new Set(f.overrides.filter((o) => o.decision === 'cleared').map(flagKey));
  const flags = f.flags.filter((fl) => fl.members.includes(v.userId) && !cleared.has(flagKey(fl)));
  const item = `${v.kind}:${v.targetId}`;
  return {
    account: f.account,
    confirmed,
    flags: flags.filter((fl) => fl.kind !== 'burst'),
    burstVote: flags.some((fl) => fl.kind === 'burst' && fl.evidence.target === item),
    noClick: isNoClickVoter(f.articleVotes, f.clicked),
  };
}
