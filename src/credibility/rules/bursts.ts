/**
 * Bursts on one target, and indiscriminate voters. A burst: within a short window, several votes on
 * one item from one cluster of fresh accounts (one cohort, or accounts that were new at the time
 * and were created close together), making up at least half of that window's votes. Fresh
 * accounts from different clusters never add up to a burst, so a newcomer who votes on an item at
 * the same time as a farm is not counted with it. One flag per cluster, however many items it
 * burst on, naming the item it burst on with the most accounts. Indiscriminate: a voter who voted on nearly every item voted on this month.
 */
import type { Account, Flag, Vote } from './model.js';
import { T } from './thresholds.js';

/** Cluster of each account: its cohort, else a chain of accounts created at most burstCreatedGapMs apart. */
function clusters(accounts: Map<number, Account>, cohorts: Flag[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const f of cohorts) for (const m of f.members) out.set(m, `c${f.members[0]}`);
  const rest = [...accounts.values()].filter((a) => !out.has(a.id)).sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
  let key = '';
  for (let i = 0; i < rest.length; i++) {
    if (i === 0 || rest[i].createdAt - rest[i - 1].createdAt > T.burstCreatedGapMs) key = `n${rest[i].id}`;
    out.set(rest[i].id, key);
  }
  return out;
}

const isFresh = (v: Vote, accounts: Map<number, Account>, cohort: Set<number>) => {
  const a = accounts.get(v.userId);
  if (cohort.has(v.userId)) return true;
  return !!a && v.at >= a.createdAt && v.at - a.createdAt < T.youngAccountMs;
};

/** (kind, target) packed into one number: target * 2 + kind bit. */
const itemKey = (v: Vote) => v.targetId * 2 + (v.kind === 'yap_vote' ? 1 : 0);

function byTarget(votes: Vote[]): Map<number, Vote[]> {
  const out = new Map<number, Vote[]>();
  for (const v of votes) {
    const k = itemKey(v);
    const list = out.get(k);
    if (list) list.push(v);
    else out.set(k, [v]);
  }
  return out;
}

/** At least burstMinVotes fresh votes: fewer can never form a burst, so the item needs no window scan. */
function enoughFresh(list: Vote[], accounts: Map<number, Account>, cohort: Set<number>): boolean {
  let n = 0;
  for (const v of list) if (isFresh(v, accounts, cohort) && ++n >= T.burstMinVotes) return true;
  return false;
}

/** Per cluster: the accounts whose fresh votes on this item formed a burst. */
function burstsOn(list: Vote[], accounts: Map<number, Account>, cohort: Set<number>, clusterOf: Map<number, string>): Map<string, Set<number>> {
  list.sort((a, b) => a.at - b.at || a.userId - b.userId);
  const found = new Map<string, Set<number>>();
  let lo = 0;
  for (let hi = 0; hi < list.length; hi++) {
    while (list[hi].at - list[lo].at > T.burstWindowMs) lo++;
    const window = list.slice(lo, hi + 1);
    const per = new Map<string, number[]>();
    for (const v of window) {
      if (!isFresh(v, accounts, cohort)) continue;
      const c = clusterOf.get(v.userId) ?? `u${v.userId}`;
      per.set(c, [...(per.get(c) ?? []), v.userId]);
    }
    for (const [c, us] of per) {
      if (us.length < T.burstMinVotes || us.length * 2 < window.length) continue;
      const s = found.get(c) ?? new Set<number>();
      for (const u of us) s.add(u);
      found.set(c, s);
    }
  }
  return found;
}

/** The burst flags, and the keys (kind:target:user) of the votes that belong to a burst. */
export function detectBursts(votes: Vote[], accounts: Map<number, Account>, cohorts: Flag[]): { flags: Flag[]; burstVotes: Set<string> } {
  const cohort = new Set(cohorts.flatMap((f) => f.members));
  const clusterOf = clusters(accounts, cohorts);
  const groups = new Map<string, { members: Set<number>; target: string; votes: number; items: number }>();
  const burstVotes = new Set<string>();
  // Items in key order, so the evidence does not depend on the order the votes were read in.
  const items = byTarget(votes);
  for (const key of [...items.keys()].sort((a, b) => a - b)) {
    const list = items.get(key)!;
    if (list.length < T.burstMinVotes || !enoughFresh(list, accounts, cohort)) continue;
    const target = `${list[0].kind}:${list[0].targetId}`;
    for (const [c, members] of burstsOn(list, accounts, cohort, clusterOf)) {
      for (const v of list) if (members.has(v.userId)) burstVotes.add(`${v.kind}:${v.targetId}:${v.userId}`);
      const g = groups.get(c);
      if (g) {
        for (const m of members) g.members.add(m);
        g.items++;
        // The evidence names the item the cluster burst on with the most accounts (the first such item).
        if (members.size > g.votes) Object.assign(g, { target, votes: members.size });
      } else groups.set(c, { members: new Set(members), target, votes: members.size, items: 1 });
    }
  }
  const flags = [...groups.values()].map((g): Flag => {
    const evidence: Flag['evidence'] = { target: g.target, votes: g.votes };
    if (g.items > 1) evidence.items = g.items;
    return { kind: 'burst', members: [...g.members].sort((a, b) => a - b), evidence };
  });
  return { flags, burstVotes };
}

export function detectIndiscriminate(votes: Vote[]): Flag[] {
  const items = new Set<number>();
  const perUser = new Map<number, number>();
  for (const v of votes) {
    items.add(itemKey(v));
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
