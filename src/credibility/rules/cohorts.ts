/**
 * Accounts created together: a run of accounts sharing a sign-in fingerprint (hashed network address
 * or user agent) created within a short window, or a larger run created within a minute whatever
 * their fingerprints.
 */
import type { Account, Flag } from './model.js';
import { T } from './thresholds.js';
import { UnionFind } from './union-find.js';

/** Link consecutive accounts (by creation time) that fall within `windowMs`; runs of >= min join. */
function linkRuns(sorted: Account[], windowMs: number, min: number, uf: UnionFind, linked: Set<number>): void {
  let start = 0;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i].createdAt - sorted[i - 1].createdAt <= windowMs) continue;
    if (i - start >= min) {
      for (let j = start + 1; j < i; j++) uf.union(sorted[start].id, sorted[j].id);
      for (let j = start; j < i; j++) linked.add(sorted[j].id);
    }
    start = i;
  }
}

export function detectCohorts(accounts: Iterable<Account>): Flag[] {
  const all = [...accounts].sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
  const uf = new UnionFind();
  const linked = new Set<number>();
  const byPrint = new Map<string, Account[]>();
  for (const a of all)
    for (const f of new Set(a.fingerprints)) {
      const list = byPrint.get(f);
      if (list) list.push(a);
      else byPrint.set(f, [a]);
    }
  for (const group of byPrint.values()) if (group.length >= T.cohortMinSize) linkRuns(group, T.cohortWindowMs, T.cohortMinSize, uf, linked);
  linkRuns(all, T.cohortTightWindowMs, T.cohortTightMinSize, uf, linked);
  return uf.groups(linked).map((members) => {
    const byId = new Map(all.map((a) => [a.id, a.createdAt]));
    const times = members.map((m) => byId.get(m)!);
    return { kind: 'cohort', members, evidence: { accounts: members.length, created_within_s: Math.round((Math.max(...times) - Math.min(...times)) / 1000) } };
  });
}
