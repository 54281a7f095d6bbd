/** A UTC month YYYY-MM as [start, end). */
export function monthBounds(month: string): { start: Date; end: Date } {
  const [y, m] = month.split('-').map(Number);
  return { start: new Date(Date.UTC(y, m - 1, 1)), end: new Date(Date.UTC(y, m, 1)) };
}

/** The UTC month YYYY-MM of a time in milliseconds since the epoch. */
export function monthOfMs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}
