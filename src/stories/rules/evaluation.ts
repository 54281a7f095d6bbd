/**
 * Clustering quality against hand labels: pairwise and B-cubed precision, recall and F1.
 *
 * Pairwise: over all pairs of items, a pair is predicted together when both got one story, and
 * truly together when both carry one label. B-cubed (Bagga and Baldwin 1998): for each item, the
 * share of its predicted story that truly belongs with it (precision) and the share of its true
 * story that was put with it (recall), averaged over items. `bcubedMulti` averages over the items
 * of multi-item true stories only (singletons have recall 1 by construction); `bcubedAll` over all.
 */

export interface Scores {
  precision: number;
  recall: number;
  f1: number;
}

export interface Evaluation {
  items: number;
  trueStories: number;
  multiItemStories: number;
  predictedStories: number;
  pairwise: Scores;
  bcubedMulti: Scores;
  bcubedAll: Scores;
}

function f1(p: number, r: number): number {
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}

function groups(labels: readonly string[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  labels.forEach((l, i) => m.set(l, [...(m.get(l) ?? []), i]));
  return m;
}

export function evaluate(truth: readonly string[], predicted: readonly string[]): Evaluation {
  const t = groups(truth);
  const p = groups(predicted);
  const pairs = (m: Map<string, number[]>): number => [...m.values()].reduce((a, g) => a + (g.length * (g.length - 1)) / 2, 0);
  const joint = new Map<string, number>();
  truth.forEach((l, i) => joint.set(`${l}\u0000${predicted[i]}`, (joint.get(`${l}\u0000${predicted[i]}`) ?? 0) + 1));
  const tp = [...joint.values()].reduce((a, n) => a + (n * (n - 1)) / 2, 0);
  const pp = pairs(p);
  const tt = pairs(t);
  const pw = { precision: pp === 0 ? 1 : tp / pp, recall: tt === 0 ? 1 : tp / tt };
  let sumP = 0;
  let sumR = 0;
  let mP = 0;
  let mR = 0;
  let mN = 0;
  truth.forEach((l, i) => {
    const both = joint.get(`${l}\u0000${predicted[i]}`)!;
    const pi = both / p.get(predicted[i]!)!.length;
    const ri = both / t.get(l)!.length;
    sumP += pi;
    sumR += ri;
    if (t.get(l)!.length > 1) {
      mP += pi;
      mR += ri;
      mN += 1;
    }
  });
  const n = truth.length;
  return {
    items: n,
    trueStories: t.size,
    multiItemStories: [...t.values()].filter((g) => g.length > 1).length,
    predictedStories: p.size,
    pairwise: { ...pw, f1: f1(pw.precision, pw.recall) },
    bcubedMulti: { precision: mP / mN, recall: mR / mN, f1: f1(mP / mN, mR / mN) },
    bcubedAll: { precision: sumP / n, recall: sumR / n, f1: f1(sumP / n, sumR / n) },
  };
}
