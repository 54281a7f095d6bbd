/** The rewards drill's figures: pool shares per group, honest accounts flagged, Spearman rank correlation. */
import type { Group, SimUser } from './rewards-month.js';

const GROUPS: Group[] = ['honest', 'bot', 'ring', 'burst', 'pair'];

/** Ranks with ties averaged (1-based). */
function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    for (let k = i; k <= j; k++) out[order[k][1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** Spearman's rho: the Pearson correlation of the ranks. */
export function spearman(a: number[], b: number[]): number {
  const ra = ranks(a);
  const rb = ranks(b);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const ma = mean(ra);
  const mb = mean(rb);
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < ra.length; i++) {
    num += (ra[i] - ma) * (rb[i] - mb);
    da += (ra[i] - ma) ** 2;
    db += (rb[i] - mb) ** 2;
  }
  return da && db ? num / Math.sqrt(da * db) : 1;
}

export interface SeedResult {
  seed: number;
  naive: Record<Group, number>;
  credited: Record<Group, number>;
  attackersNaive: number;
  attackersCredited: number;
  honestFlagged: number;
  honestFlaggedIds: number[];
  spearman: number;
  flags: Record<string, number>;
  counts: { users: number; articles: number; yaps: number; votes: number };
  ms: { store: number; recompute: number; total: number };
}

/** Sum of per-user pool shares by group (fractions of the pool). */
export function byGroup(users: SimUser[], share: Map<number, number>): Record<Group, number> {
  const out = Object.fromEntries(GROUPS.map((g) => [g, 0])) as Record<Group, number>;
  for (const u of users) out[u.group] += share.get(u.id) ?? 0;
  return out;
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`.padStart(8);

export function printSeed(r: SeedResult, out: (l: string) => void): void {
  out(`seed ${r.seed}: ${r.counts.users} accounts, ${r.counts.articles} articles, ${r.counts.yaps} yaps, ${r.counts.votes} votes`);
  out(`  ${'group'.padEnd(10)} ${'naive'.padStart(8)} ${'credited'.padStart(8)}`);
  for (const g of GROUPS) out(`  ${g.padEnd(10)} ${pct(r.naive[g])} ${pct(r.credited[g])}`);
  out(`  ${'attackers'.padEnd(10)} ${pct(r.attackersNaive)} ${pct(r.attackersCredited)}`);
  out(`  honest accounts flagged: ${r.honestFlagged}${r.honestFlagged ? ` (${r.honestFlaggedIds.join(', ')})` : ''}`);
  out(`  Spearman (honest credited vs naive order): ${r.spearman.toFixed(3)}`);
  out(`  flags: ${JSON.stringify(r.flags)}`);
  out(`  time: store ${r.ms.store} ms, recompute job ${r.ms.recompute} ms, seed total ${r.ms.total} ms`);
}
