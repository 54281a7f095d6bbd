/**
 * The provenance verdict (spec: Provenance endpoints and verdict rules), from the observation times
 * of the matches (when this service first saw each matching article, never the publisher's claim).
 *
 * The spec's four rules:
 *   1. new:       no matches.
 *   2. known:     exactly 1 match, or an older single confirmation.
 *   3. duplicate: 2 or more matches with the latest younger than 24 hours.
 *   4. stale:     all matches older than 7 days.
 *
 * Precedence where the rules overlap or leave a gap (our decision):
 *   - 0 matches                                   -> new
 *   - every match older than 7 days (any count)   -> stale   (beats rule 2 for a single old match)
 *   - 2+ matches and the latest younger than 24 h -> duplicate
 *   - otherwise                                   -> known   (1 match seen within 7 days, or 2+
 *     matches whose latest is between 24 h and 7 days old: "an older single confirmation")
 *
 * Boundaries: "younger than 24 hours" is age < 24 h; "older than 7 days" is age > 7 days (exactly
 * 24 h is not younger; exactly 7 days is not older). A timestamp in the future (clock skew) has a
 * negative age and counts as young.
 */

export type ProvenanceVerdict = 'new' | 'known' | 'duplicate' | 'stale';

export const DUPLICATE_WINDOW_MS = 24 * 3600 * 1000;
export const STALE_AFTER_MS = 7 * 24 * 3600 * 1000;
/** URL and headline lookups cover this window (spec: Limits, provenance lookback). */
export const LOOKBACK_MS = 30 * 24 * 3600 * 1000;

export function provenanceVerdict(matchSeenAt: readonly Date[], now: Date): ProvenanceVerdict {
  if (matchSeenAt.length === 0) return 'new';
  const t = now.getTime();
  const ages = matchSeenAt.map((d) => t - d.getTime());
  if (ages.every((age) => age > STALE_AFTER_MS)) return 'stale';
  const youngest = Math.min(...ages);
  if (matchSeenAt.length >= 2 && youngest < DUPLICATE_WINDOW_MS) return 'duplicate';
  return 'known';
}
