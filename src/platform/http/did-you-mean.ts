/**
 * The known name an unknown one most likely stands for, shared by REST validation (`unknown_field`)
 * and the stream's filter parameters (`unknown_parameter`). Names are compared without case, `_` or
 * `-` (`tokenSymbol` is `token_symbol`); a known name is suggested when the unknown one is a
 * word-prefix of it (`sort` for `sort_type`) or within a small edit distance (one edit for names of
 * up to 5 characters, two for longer: `tags` for `tag`, `token_addresses` for `token_address`). The
 * closest wins, the first listed on a tie; null when none is close. Pure.
 */

const squash = (s: string) => s.toLowerCase().replace(/[_-]/g, '');

/** Edit distance with adjacent transpositions (optimal string alignment). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

export function didYouMean(name: string, known: readonly string[]): string | null {
  const n = squash(name);
  if (n.length < 2 || name.length > 64) return null;
  let best: { name: string; score: number } | null = null;
  for (const k of known) {
    if (k === name) continue;
    const sk = squash(k);
    const wordPrefix = k.toLowerCase().startsWith(`${name.toLowerCase()}_`);
    const score = wordPrefix ? 0.5 : distance(n, sk);
    const limit = Math.min(n.length, sk.length) <= 5 ? 1 : 2;
    if ((wordPrefix || score <= limit) && (best === null || score < best.score)) best = { name: k, score };
  }
  return best?.name ?? null;
}
