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

function peel(group: Set<number>, edges: Map<number, Map<number, number>>, total: Map<number, number>): Set<number> {
  const inside = (u: number) => {
    let s = 0;
    for (const [v, n] of edges.get(u) ?? []) if (group.has(v)) s += n;
    return s / (total.get(u) ?? 1);
  };
  for (;;) {
    let worst = -1;
    let worstShare = Infinity;
    for (const u of group) {
      const sh = inside(u);
      if (sh < worstShare || (sh === worstShare && u > worst)) [worst, worstShare] = [u, sh];
    }
    if (group.size < 2 || worstShare >= T.ringInsideShare) return group;
    group.delete(worst);
  }
}

export function detectRings(votes: Vote[]): Flag[] {
  const { edges, total } = upvoteGraph(votes);
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
    const core = peel(new Set(g), edges, total);
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
