/**
 * The time an item is placed at: the publisher's claimed time when it is plausible (not in the
 * future by more than CLOCK_SKEW_MS, not older than MAX_CLAIM_AGE_MS before the service saw it),
 * else the service's own observation time.
 */
const CLOCK_SKEW_MS = 15 * 60_000;
const MAX_CLAIM_AGE_MS = 7 * 24 * 3600_000;

export function plausibleTime(claimed: Date | null, observed: Date, now: Date): Date {
  if (!claimed || Number.isNaN(claimed.getTime())) return observed;
  const t = claimed.getTime();
  if (t > Math.max(now.getTime(), observed.getTime()) + CLOCK_SKEW_MS) return observed;
  if (t < observed.getTime() - MAX_CLAIM_AGE_MS) return observed;
  return claimed;
}
