/**
 * Bursts on one target, and indiscriminate voters. A burst: within a short window, several votes on
 * one item from accounts that were new at the time or belong to a cohort, making up at least half
 * of that window's votes. Indiscriminate: a voter who voted on nearly every item voted on this month.
 */
import type { Account, Flag, Vote } from './model.js';
import { T } from './thresholds.js';

const isFresh = (v: Vote, accounts: Map<number, Account>, cohort: Set<number>) => {
  const a = accounts.get(v.userId);
  if (cohort.has(v.userId)) return true;
  return !!a && v.at >= a.createdAt && v.at - a.createdAt < T.youngAccountMs;
};

/** The burst flags, and the keys (kind:target:user) of the votes that belong to a burst. */
export function detectBursts(votes: Vote[], accounts: Map<number, Account>, cohort: Set<number>): { flags: Flag[]; burstVotes: Set<string> } {
  const byTarget = new Map<string, Vote[]>();
  for (const v of votes) {
    const k = `${v.kind}:${v.targetId}`;
    const list = byTarget.get(k);
    if (list) list.push(v);
    else byTarget.set(k, [v]);
  }
  const flags: Flag[] = [];
  const burstVotes = new Set<string>();
  for (const [target, list] of byTarget) {
    if (list.length < T.burstMinVotes) continue;
    list.sort((a, b) => a.at - b.at || a.userId - b.userId);
    const members = new Set<number>();
    let lo = 0;
    for (let hi = 0; hi < list.length; hi++) {
      while (list[hi].at - list[lo].at > T.burstWindowMs) lo++;
      const window = list.slice(lo, hi + 1);
      const fresh = window.filter((v) => isFresh(v, accounts, cohort));
      if (fresh.length >= T.burstMinVotes && fresh.length * 2 >= window.length) for (const v of fresh) members.add(v.userId);
    }
    if (members.size === 0) continue;
    for (const v of list) if (members.has(v.userId)) burstVotes.add(`${v.kind}:${v.targetId}:${v.userId}`);
    flags.push({ kind: 'burst', members: [...members].sort((a, b) => a - b), evidence: { target, votes: members.size } });
  }
  return { flags, burstVotes };
}

export function detectIndiscriminate(votes: Vote[]): Flag[] {
  const items = new Set<string>();
  const perUser = new Map<number, number>();
  for (const v of votes) {
    items.add(`${v.kind}:${v.targetId}`);
    perUser.set(v.userId, (perUser.get(v.userId) ?? 0) + 1);
  }
  const flags: Flag[] = [];
  for (const [u, n] of perUser) {
    if (n >= T.indiscriminateMinVotes && n >= T.indiscriminateShare * items.size) {
      flags.push({ kind: 'indiscriminate', members: [u], evidence: { votes: n, items_voted_on_this_month: items.size, percent: Math.round((100 * n) / items.size) } });
    }
  }
  return flags.sort((a, b) => a.members[0] - b.members[0]);
}
