/** The benchmarks' statistics: median, nearest-rank percentile, and a 1 ms latency histogram that merges across processes. */

export const median = (xs: readonly number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Nearest-rank percentile of an ascending array (p in 0..1). */
export const pct = (sorted: readonly number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : NaN);

/** Latency histogram in 1 ms buckets (the clocks compared here have 1 ms resolution), up to `maxMs`. */
export class MsHistogram {
  readonly buckets: Uint32Array;
  count = 0;
  negatives = 0;
  max = -Infinity;

  constructor(readonly maxMs = 120_000) {
    this.buckets = new Uint32Array(maxMs + 1);
  }

  add(ms: number): void {
    this.count++;
    if (ms < 0) this.negatives++;
    if (ms > this.max) this.max = ms;
    this.buckets[Math.min(this.maxMs, Math.max(0, Math.round(ms)))]++;
  }

  /** [bucket, count] pairs of the non-empty buckets (for IPC). */
  sparse(): [number, number][] {
    const out: [number, number][] = [];
    for (let i = 0; i < this.buckets.length; i++) if (this.buckets[i]) out.push([i, this.buckets[i]]);
    return out;
  }

  merge(sparse: readonly [number, number][], extra: { negatives: number; max: number }): void {
    for (const [b, n] of sparse) {
      this.buckets[b] += n;
      this.count += n;
    }
    this.negatives += extra.negatives;
    this.max = Math.max(this.max, extra.max);
  }

  quantile(p: number): number {
    if (this.count === 0) return NaN;
    const target = Math.max(1, Math.ceil(p * this.count));
    let acc = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      acc += this.buckets[i];
      if (acc >= target) return i;
    }
    return this.maxMs;
  }
}
