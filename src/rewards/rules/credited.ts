/**
 * How much of a user's activity on a board counted (docs/rewards.md): the credited score over the
 * measured activity, 0..1, on the four category boards. Null on engagement (its score is points, not
 * activity) and when there is no positive activity to compare with. Pure.
 */
export function creditedShare(board: string, activity: number, score: number): number | null {
  if (board === 'engagement' || !(activity > 0)) return null;
  return Math.round(Math.min(1, Math.max(0, score / activity)) * 10_000) / 10_000;
}
