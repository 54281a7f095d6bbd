/**
 * Voters that move together (co-voting: near-identical sets of voted items and directions, counted
 * as one, as Gitcoin's connection-oriented matching does) and voters that vote for each other
 * (rings and reciprocal pairs: each member sends most of its upvotes on others' content inside the
 * group). Ring groups come from peeling: start from accounts linked by reciprocal upvotes, then drop
 * the member that sends the least inside until every remaining member sends most of its votes inside.
 */
import type { Flag, Vote } from './model.js';
import { T } from './thresholds.js';
import { UnionFind } from './union-find.js';

export function detectCoVoting(votes: Vote[]): Flag[] {
  const sets = new Map<number, Set<string>>();
  const voters = new Map<string, number[]>();
  for (const v of votes) {
    const key = `${v.kind}:${v.targetId}:${v.value}`;
    const s = sets.get(v.userId) ?? new Set<string>();
    s.add(key);
    sets.set(v.userId, s);
    const list = voters.get(key);
    if (list) list.push(v.userId);
    else voters.set(key, [v.userId]);
  }
  const overlap = new Map<string, number>();
  for (const us of voters.values()) {
    const active = us.filter((u) => sets.get(u)!.size >= T.coVoteMinVotes);
    if (active.length < 2 || us.length > T.coVoteMaxVoters) continue;
    for (let i = 0; i < active.length; i++)
      for (let j = i + 1; j < active.length; j++) {
        const k = active[i] < active[j] ? `${active[i]}:${active[j]}` : `${active[j]}:${active[i]}`;
        overlap.set(k, (overlap.get(k) ?? 0) + 1);
      }
  }
  const uf = new UnionFind();
  const linked = new Set<number>();
  for (const [k, both] of overlap) {
    const [a, b] = k.split(':').map(Number);
    const jaccard = both / (sets.get(a)!.size + sets.get(b)!.size - both);
    if (jaccard >= T.coVoteJaccard) {
      uf.union(a, b);
      linked.add(a);
      linked.add(b);
    }
  }
  return uf.groups(linked).map((members) => ({ kind: 'co_voting', members, evidence: { accounts: members.length, votes: members.reduce((s, m) => s + sets.get(m)!.size, 0) } }));
}

/** Upvotes each voter cast on each other author's content, and each voter's total upvotes on others' content. */
function upvoteGraph(votes: Vote[]) {
  const edges = new Map<number, Map<number, number>>();
  const total = new Map<number, number>();
  for (const v of votes) {
    if (v.value !== 1 || v.authorId === null || v.authorId === v.userId) continue;
    const out = edges.get(v.userId) ?? new Map<number, number>();
    out.set(v.authorId, (out.get(v.authorId) ?? 0) + 1);
    edges.set(v.userId, out);
    total.set(v.userId, (total.get(v.userId) ?? 0) + 1);
  }
  return { edges, total };
}

/** Upvotes each author received from each voter (the reverse of `edges`). */
function reverse(edges: Map<number, Map<number, number>>): Map<number, Map<number, number>> {
  const rev = new Map<number, Map<number, number>>();
  for (const [u, out] of edges)
    for (const [v, n] of out) {
      const m = rev.get(v) ?? new Map<number, number>();
      m.set(u, n);
      rev.set(v, m);
    }
  return rev;
}

/**
 * Peel `group` down to its core: repeatedly drop the member that sends the smallest share of its
 * upvotes inside, until every member sends at least ringInsideShare inside and at least ringMinLift
 * times the share everyone outside the group sends to the group's content (the baseline). The
 * baseline keeps a large honest community, whose members naturally vote mostly for each other's
 * content, from standing as a ring: its baseline is as high as its members' inside share.
 */
function peel(group: Set<number>, edges: Map<number, Map<number, number>>, total: Map<number, number>, allUpvotes: number): Set<number> {
  const rev = reverse(edges);
  const inside = new Map<number, number>();
  let fromOutside = 0;
  let outsideTotal = allUpvotes;
  for (const u of group) {
    let s = 0;
    for (const [v, n] of edges.get(u) ?? []) if (group.has(v)) s += n;
    inside.set(u, s);
    outsideTotal -= total.get(u) ?? 0;
    for (const [x, n] of rev.get(u) ?? []) if (!group.has(x)) fromOutside += n;
  }
  for (;;) {
    let worst = -1;
    let worstShare = Infinity;
    for (const u of group) {
      const sh = inside.get(u)! / (total.get(u) ?? 1);
      if (sh < worstShare || (sh === worstShare && u > worst)) [worst, worstShare] = [u, sh];
    }
    // A group of every voter has nobody to vote for more than for the rest: no ring.
    const baseline = outsideTotal > 0 ? fromOutside / outsideTotal : 1;
    if (group.size < 2 || (worstShare >= T.ringInsideShare && worstShare >= T.ringMinLift * baseline)) return group;
    group.delete(worst);
    for (const [x, n] of rev.get(worst) ?? []) if (!group.has(x) && x !== worst) fromOutside -= n;
    for (const [v, n] of edges.get(worst) ?? []) if (group.has(v)) fromOutside += n;
    outsideTotal += total.get(worst) ?? 0;
    for (const [x, n] of rev.get(worst) ?? []) if (group.has(x)) inside.set(x, inside.get(x)! - n);
  }
}

export function detectRings(votes: Vote[]): Flag[] {
  const { edges, total } = upvoteGraph(votes);
  const allUpvotes = [...total.values()].reduce((s, n) => s + n, 0);
  const uf = new UnionFind();
  const linked = new Set<number>();
  for (const [u, out] of edges) {
    if ((total.get(u) ?? 0) < T.ringMinVotes) continue;
    for (const [v, n] of out) {
      if (n >= T.ringMinEdgeVotes && (edges.get(v)?.get(u) ?? 0) >= T.ringMinEdgeVotes && (total.get(v) ?? 0) >= T.ringMinVotes) {
        uf.union(u, v);
        linked.add(u);
        linked.add(v);
      }
    }
  }
  const flags: Flag[] = [];
  for (const g of uf.groups(linked)) {
    const core = peel(new Set(g), edges, total, allUpvotes);
    if (core.size < 2) continue;
    const members = [...core].sort((a, b) => a - b);
    let inside = 0;
    let all = 0;
    for (const u of members) {
      all += total.get(u) ?? 0;
      for (const [v, n] of edges.get(u) ?? []) if (core.has(v)) inside += n;
    }
    flags.push({
      kind: members.length === 2 ? 'reciprocal_pair' : 'ring',
      members,
      evidence: { accounts: members.length, upvotes_inside: inside, upvotes_on_others_content: all, inside_percent: Math.round((100 * inside) / all) },
    });
  }
  return flags;
}
