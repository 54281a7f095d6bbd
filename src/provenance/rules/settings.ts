/**
 * Tunables of provenance and wire ingestion, read from the parsed config with their defaults.
 * The variables are declared in src/platform/config.ts (envSchema, documented there and in README); reading
 * them through here keeps the defaults in one place and lets tests pass a config object with
 * shorter timings.
 */
interface ProvenanceSettings {
  /** PROVENANCE_TRGM_THRESHOLD: pg_trgm similarity between candidate keys (provenance_headline_key) a curated headline needs to be a candidate. */
  trgmThreshold: number;
  /** WIRE_FETCH_TIMEOUT_MS: deadline of one feed fetch, redirects and body included. */
  wireFetchTimeoutMs: number;
  /** WIRE_FETCH_MAX_BYTES: largest decoded feed body. */
  wireFetchMaxBytes: number;
  /** WIRE_MAX_ITEMS_PER_FETCH: items taken from one feed response. */
  wireMaxItemsPerFetch: number;
  /** WIRE_BACKOFF_MAX_S: longest back-off of a failing source. */
  wireBackoffMaxS: number;
  /** WIRE_PROMOTE_MIN_SCORE: score an item needs for automatic promotion. */
  wirePromoteMinScore: number;
  /** WIRE_PROMOTE_MAX_PER_RUN: most automatic promotions per run. */
  wirePromoteMaxPerRun: number;
}

export const provenanceDefaults = {
  PROVENANCE_TRGM_THRESHOLD: 0.45,
  WIRE_FETCH_TIMEOUT_MS: 15_000,
  WIRE_FETCH_MAX_BYTES: 10 * 1024 * 1024,
  WIRE_MAX_ITEMS_PER_FETCH: 2000,
  WIRE_BACKOFF_MAX_S: 6 * 3600,
  WIRE_PROMOTE_MIN_SCORE: 0.6,
  WIRE_PROMOTE_MAX_PER_RUN: 5,
} as const;

export function provenanceSettings(config: object): ProvenanceSettings {
  const c = config as Partial<Record<keyof typeof provenanceDefaults, number>>;
  const get = (k: keyof typeof provenanceDefaults) => (typeof c[k] === 'number' && Number.isFinite(c[k]) ? (c[k] as number) : provenanceDefaults[k]);
  return {
    trgmThreshold: get('PROVENANCE_TRGM_THRESHOLD'),
    wireFetchTimeoutMs: get('WIRE_FETCH_TIMEOUT_MS'),
    wireFetchMaxBytes: get('WIRE_FETCH_MAX_BYTES'),
    wireMaxItemsPerFetch: get('WIRE_MAX_ITEMS_PER_FETCH'),
    wireBackoffMaxS: get('WIRE_BACKOFF_MAX_S'),
    wirePromoteMinScore: get('WIRE_PROMOTE_MIN_SCORE'),
    wirePromoteMaxPerRun: get('WIRE_PROMOTE_MAX_PER_RUN'),
  };
}

/** Longest URL and headline text a provenance check takes (the route's and the job's payload limits). */
export const MAX_CHECK_URL_LENGTH = 8192;
export const MAX_CHECK_TEXT_LENGTH = 500;
