/** Disjoint sets over account ids (groups of accounts linked by a pairwise signal). */
export class UnionFind {
  private parent = new Map<number, number>();

  find(x: number): number {
    let p = this.parent.get(x) ?? x;
    if (p === x) return x;
    p = this.find(p);
    this.parent.set(x, p);
    return p;
  }

  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(Math.max(ra, rb), Math.min(ra, rb));
  }

  /** Groups of at least `min` members, members sorted. */
  groups(ids: Iterable<number>, min = 2): number[][] {
    const by = new Map<number, number[]>();
    for (const id of ids) {
      const r = this.find(id);
      const g = by.get(r) ?? [];
      g.push(id);
      by.set(r, g);
    }
    return [...by.values()].filter((g) => g.length >= min).map((g) => g.sort((a, b) => a - b));
  }
}
