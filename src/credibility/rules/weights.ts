/**
 * The credibility weight (0..1) of every vote, yap and submission of a month, with the reasons a
 * person can read for every weight below 1. Pure: the same activity and overrides always give the
 * same weights (the nightly recompute relies on it to resume after a kill).
 */
import { detectBursts, detectIndiscriminate } from './bursts.js';
import { detectCohorts } from './cohorts.js';
import { flagKey, type Authored, type Flag, type FlagKind, type MonthActivity, type Vote, type Weighted } from './model.js';
import { REASONS } from './reasons.js';
import { T } from './thresholds.js';
import { isNoClickVoter, voteWeight, type VoteContext } from './vote-weight.js';
import { detectCoVoting, detectRings } from './voting-groups.js';

export { REASONS };

/** The item kinds in alphabetical order (the order weights are listed in). */
const KIND_ORDER: Record<Weighted['kind'], number> = { article_vote: 0, submission: 1, yap: 2, yap_vote: 3 };

const GROUP_KINDS: readonly FlagKind[] = ['ring', 'reciprocal_pair', 'co_voting', 'cohort'];

interface Detection {
  flags: Flag[];
  weights: Weighted[];
}

function detectAll(m: MonthActivity): { flags: Flag[]; burstVotes: Set<string> } {
  const cohorts = detectCohorts(m.accounts.values());
  const { flags: bursts, burstVotes } = detectBursts(m.votes, m.accounts, cohorts);
  const flags = [...cohorts, ...detectCoVoting(m.votes), ...detectRings(m.votes), ...bursts, ...detectIndiscriminate(m.votes)];
  return { flags, burstVotes };
}

/** Per account: the active (not cleared) flags it belongs to, and whether staff confirmed one. */
function membership(flags: Flag[], m: MonthActivity) {
  const decision = new Map(m.overrides.map((o) => [flagKey(o), o.decision]));
  const of = new Map<number, Flag[]>();
  const confirmed = new Set<number>();
  for (const f of flags) {
    const d = decision.get(flagKey(f));
    if (d === 'cleared') continue;
    for (const u of f.members) {
      of.set(u, [...(of.get(u) ?? []), f]);
      if (d === 'confirmed') confirmed.add(u);
    }
  }
  for (const o of m.overrides) if (o.decision === 'confirmed') for (const u of o.members) confirmed.add(u);
  return { of, confirmed };
}

function noClickVoters(votes: Vote[]): Set<number> {
  const n = new Map<number, [number, number]>();
  for (const v of votes) {
    if (v.kind !== 'article_vote') continue;
    const c = n.get(v.userId) ?? [0, 0];
    c[0]++;
    if (v.clicked) c[1]++;
    n.set(v.userId, c);
  }
  return new Set([...n].filter(([, [all, clicked]]) => isNoClickVoter(all, clicked)).map(([u]) => u));
}

type Ctx = { m: MonthActivity; of: Map<number, Flag[]>; confirmed: Set<number>; burstVotes: Set<string>; burstVoters: Set<number>; noClick: Set<number> };

const NO_FLAGS: readonly Flag[] = [];

function contextOf(v: Vote, c: Ctx): VoteContext {
  return {
    account: c.m.accounts.get(v.userId),
    confirmed: c.confirmed.has(v.userId),
    flags: c.of.get(v.userId) ?? NO_FLAGS,
    burstVote: c.burstVoters.has(v.userId) && c.burstVotes.has(`${v.kind}:${v.targetId}:${v.userId}`),
    noClick: c.noClick.has(v.userId),
  };
}

function authoredWeight(a: Authored, c: Ctx): Weighted {
  const out: Weighted = { kind: a.kind, targetId: a.targetId, userId: a.userId, weight: 1, reasons: [] };
  const apply = (f: number, reason: string) => {
    out.weight *= f;
    out.reasons.push(reason);
  };
  if (c.confirmed.has(a.userId)) apply(0, REASONS.confirmed);
  const groups = (c.of.get(a.userId) ?? []).filter((f) => GROUP_KINDS.includes(f.kind));
  if (groups.length) apply(T.flaggedAuthorFactor, REASONS.groupAuthor);
  const editor = a.reviewedBy;
  if (editor != null && editor !== a.userId && groups.some((f) => f.members.includes(editor))) apply(0, REASONS.ownGroupReview);
  return out;
}

/** Flags of the month and every weight below 1 (sorted by kind, target, user). */
export function computeCredibility(m: MonthActivity): Detection {
  const { flags, burstVotes } = detectAll(m);
  const { of, confirmed } = membership(flags, m);
  const burstVoters = new Set([...burstVotes].map((k) => Number(k.slice(k.lastIndexOf(':') + 1))));
  const ctx: Ctx = { m, of, confirmed, burstVotes, burstVoters, noClick: noClickVoters(m.votes) };
  const weights: Weighted[] = [];
  for (const v of m.votes) {
    const w = voteWeight(v, contextOf(v, ctx));
    if (w.weight < 1) weights.push(w);
  }
  for (const a of m.authored) {
    const w = authoredWeight(a, ctx);
    if (w.weight < 1) weights.push(w);
  }
  weights.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.targetId - b.targetId || a.userId - b.userId);
  flags.sort((a, b) => a.kind.localeCompare(b.kind) || a.members.join(',').localeCompare(b.members.join(',')));
  return { flags, weights };
}
