/**
 * Timestamps as the API writes them: ISO 8601 in UTC with milliseconds (`Date.toISOString`).
 * PostgreSQL rows carry Date objects; JSON built inside SQL (json_build_object) carries strings.
 */
export function isoTime(d: Date | string): string {
  return (typeof d === 'string' ? new Date(d) : d).toISOString();
}

/** isoTime, with null (or a missing value) passed through as null. */
export function isoTimeOrNull(d: Date | string | null | undefined): string | null {
  return d === null || d === undefined ? null : isoTime(d);
}
