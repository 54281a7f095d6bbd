/**
 * The provenance check result (spec: Provenance check result), assembled from what the matcher
 * found. Pure: the caller passes `now`.
 *
 * Decisions where the spec is silent:
 *  - Curated articles (what matches[] and search cover) are articles with status `approved` and no
 *    sponsorship (`sponsored IS NULL`). Automatic-ingest items (raw wire items, and wire-promoted
 *    articles still waiting for an editor) are not curated; a wire-promoted article becomes curated
 *    once an editor approves it.
 *  - matches[] holds articles only (news_id is an article id). Wire sightings of the URL are
 *    tsunami_receipts; they do not count towards the verdict, which describes editorial coverage.
 *  - first_seen / latest_seen are the earliest / latest of our own observation times over the
 *    matches (the article's created_at: when the URL reached us) and the receipts (ingested_at);
 *    null when there is neither.
 *  - `url` given: URL matching (normalised URL equality, similarity 1.0, method `url`). When the URL
 *    matches nothing and `text` is given too, headline similarity is the fallback (method `headline`).
 *  - Every lookup covers the last 30 days of observation time.
 *  - `story` (additive): the story (src/stories/) of the best-ranked match that has one, else the
 *    story of the earliest wire item carrying the checked URL (or a matched article's URL); null
 *    when none has a story yet. Each match carries its article's `story_id` (null when none).
 *    Stories never change the verdict.
 */
import { HEADLINE_MATCH_THRESHOLD } from './headline-similarity.js';
import { LOOKBACK_MS, provenanceVerdict, type ProvenanceVerdict } from './verdict.js';

interface ProvenanceMatch {
  news_id: number;
  headline: string;
  source: string;
  canonical_url: string;
  similarity: number;
  method: 'url' | 'headline';
  /** When this service first observed the article (extra field). */
  seen_at: string;
  /** The article's story, null while it has none (extra field). */
  story_id: number | null;
}

/** A story as a check result shows it. */
export interface StorySummary {
  id: number;
  first_seen_at: Date;
  member_count: number;
  source_count: number;
}

/** The stories behind a check's matches (src/provenance/story-queries.ts). */
export interface MatchStories {
  byArticle: ReadonlyMap<number, number | null>;
  /** The story of the earliest wire item carrying a checked URL, or null. */
  wireStory: number | null;
  summaries: ReadonlyMap<number, StorySummary>;
}

const NO_STORIES: MatchStories = { byArticle: new Map(), wireStory: null, summaries: new Map() };

interface TsunamiReceipt {
  source_name: string;
  source_url: string;
  ingested_at: string;
  publisher_claimed_time: string | null;
  /** The item's link as that source published it (extra field). */
  item_url: string;
}

export interface ProvenanceCheckResult {
  verdict: ProvenanceVerdict;
  match_count: number;
  first_seen: string | null;
  latest_seen: string | null;
  normalized_url: string | null;
  matches: ProvenanceMatch[];
  tsunami_receipts: TsunamiReceipt[];
  story: { id: number; first_seen_at: string; member_count: number; source_count: number } | null;
  meta: {
    first_seen_basis: 'leviathan_observation';
    lookback_days: number;
    methods: ('url' | 'headline')[];
    headline_threshold: number;
    checked_at: string;
  };
}

export interface MatchInput {
  id: number;
  headline: string;
  source: string;
  normalized_url: string;
  seen_at: Date;
  similarity: number;
  method: 'url' | 'headline';
}

export interface ReceiptInput {
  source_name: string;
  source_url: string;
  item_url: string;
  ingested_at: Date;
  publisher_claimed_at: Date | null;
}

/** Similarities are reported with 4 decimals; exact matches are exactly 1. */
function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

export function buildCheckResult(input: {
  normalizedUrl: string | null;
  matches: MatchInput[];
  receipts: ReceiptInput[];
  methods: ('url' | 'headline')[];
  now: Date;
  stories?: MatchStories;
}): ProvenanceCheckResult {
  const stories = input.stories ?? NO_STORIES;
  const matches = [...input.matches].sort((a, b) => b.similarity - a.similarity || a.seen_at.getTime() - b.seen_at.getTime() || a.id - b.id);
  const receipts = [...input.receipts].sort((a, b) => a.ingested_at.getTime() - b.ingested_at.getTime());
  const times = [...matches.map((m) => m.seen_at.getTime()), ...receipts.map((r) => r.ingested_at.getTime())];
  return {
    verdict: provenanceVerdict(
      matches.map((m) => m.seen_at),
      input.now,
    ),
    match_count: matches.length,
    first_seen: times.length ? new Date(Math.min(...times)).toISOString() : null,
    latest_seen: times.length ? new Date(Math.max(...times)).toISOString() : null,
    normalized_url: input.normalizedUrl,
    matches: matches.map((m) => ({
      news_id: m.id,
      headline: m.headline,
      source: m.source,
      canonical_url: m.normalized_url,
      similarity: m.method === 'url' ? 1 : round4(m.similarity),
      method: m.method,
      seen_at: m.seen_at.toISOString(),
      story_id: stories.byArticle.get(m.id) ?? null,
    })),
    tsunami_receipts: receipts.map((r) => ({
      source_name: r.source_name,
      source_url: r.source_url,
      ingested_at: r.ingested_at.toISOString(),
      publisher_claimed_time: r.publisher_claimed_at ? r.publisher_claimed_at.toISOString() : null,
      item_url: r.item_url,
    })),
    story: storyOf(matches, stories),
    meta: {
      first_seen_basis: 'leviathan_observation',
      lookback_days: LOOKBACK_MS / 86_400_000,
      methods: input.methods,
      headline_threshold: HEADLINE_MATCH_THRESHOLD,
      checked_at: input.now.toISOString(),
    },
  };
}

/** The story of the best-ranked match that has one (matches sorted best first), else the wire item's; null when none. */
function storyOf(matches: readonly MatchInput[], stories: MatchStories): ProvenanceCheckResult['story'] {
  const id = matches.map((m) => stories.byArticle.get(m.id) ?? null).find((x) => x !== null) ?? stories.wireStory;
  const s = id === null ? undefined : stories.summaries.get(id);
  if (!s) return null;
  return { id: s.id, first_seen_at: s.first_seen_at.toISOString(), member_count: s.member_count, source_count: s.source_count };
}
