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

/** Voters (dense indices) and the (kind, target, direction) items each voted on, one entry per vote. */
function indexVotes(votes: Vote[]) {
  const userIndex = new Map<number, number>();
  const itemIndex = new Map<number, number>();
  const ids: number[] = [];
  const itemsOf: number[][] = [];
  const votersOf: number[][] = [];
  for (const v of votes) {
    let u = userIndex.get(v.userId);
    if (u === undefined) {
      u = ids.length;
      userIndex.set(v.userId, u);
      ids.push(v.userId);
      itemsOf.push([]);
    }
    // (kind, target, direction) packed into one number: target * 4 + kind bit * 2 + direction bit.
    const key = v.targetId * 4 + (v.kind === 'yap_vote' ? 2 : 0) + (v.value === 1 ? 1 : 0);
    let it = itemIndex.get(key);
    if (it === undefined) {
      it = votersOf.length;
      itemIndex.set(key, it);
      votersOf.push([]);
    }
    itemsOf[u].push(it);
    votersOf[it].push(u);
  }
  const seen = new Int32Array(votersOf.length).fill(-1);
  const distinct = new Int32Array(ids.length);
  for (let u = 0; u < ids.length; u++)
    for (const it of itemsOf[u])
      if (seen[it] !== u) {
        seen[it] = u;
        distinct[u]++;
      }
  return { ids, itemsOf, votersOf, distinct };
}

/**
 * Pairs of active voters whose item sets overlap at least coVoteJaccard, counted voter by voter: the
 * items a voter shares with each later voter are tallied in one array, so no pair table is built.
 */
export function detectCoVoting(votes: Vote[]): Flag[] {
  const { ids, itemsOf, votersOf, distinct } = indexVotes(votes);
  const shared = new Int32Array(ids.length);
  const touched: number[] = [];
  const uf = new UnionFind();
  const linked = new Set<number>();
  for (let a = 0; a < ids.length; a++) {
    if (distinct[a] < T.coVoteMinVotes) continue;
    for (const it of itemsOf[a]) {
      const us = votersOf[it];
      if (us.length > T.coVoteMaxVoters) continue;
      for (const b of us) if (b > a && distinct[b] >= T.coVoteMinVotes && shared[b]++ === 0) touched.push(b);
    }
    for (const b of touched) {
      const both = shared[b];
      shared[b] = 0;
      if (both / (distinct[a] + distinct[b] - both) >= T.coVoteJaccard) {
        uf.union(ids[a], ids[b]);
        linked.add(ids[a]);
        linked.add(ids[b]);
      }
    }
    touched.length = 0;
  }
  const size = new Map(ids.map((id, i) => [id, distinct[i]]));
  return uf.groups(linked).map((members) => ({ kind: 'co_voting', members, evidence: { accounts: members.length, votes: members.reduce((s, m) => s + size.get(m)!, 0) } }));
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
