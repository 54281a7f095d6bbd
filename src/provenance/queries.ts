/**
 * Provenance reads: URL and headline matching against curated articles, wire receipts, search and
 * the receipts page. "Curated" = status approved and not sponsored (see src/provenance/rules/check.ts).
 */
import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { headlineSimilarity, HEADLINE_MATCH_THRESHOLD } from './rules/headline-similarity.js';
import { buildCheckResult, type MatchInput, type ProvenanceCheckResult, type ReceiptInput } from './rules/check.js';
import { LOOKBACK_MS } from './rules/verdict.js';
import { normalizeUrl } from '../platform/url/normalize.js';
import { matchStories } from './story-queries.js';

/** Statuses that count as curated coverage for provenance checks and search. */
const CURATED_STATUSES = ['approved'] as const;

interface ArticleHit {
  id: number;
  headline: string;
  source: string;
  normalized_url: string;
  seen_at: Date;
}

const MAX_URL_MATCHES = 100;
const MAX_RECEIPTS = 100;

export async function articlesByUrl(db: Db, normalizedUrl: string, since: Date, statuses: readonly string[] = CURATED_STATUSES): Promise<ArticleHit[]> {
  const { rows } = await sql<ArticleHit>`
    SELECT id, headline, source, normalized_url, created_at AS seen_at
    FROM articles
    WHERE normalized_url = ${normalizedUrl} AND status = ANY(${statuses as string[]}) AND sponsored IS NULL AND created_at >= ${since}
    ORDER BY created_at, id
    LIMIT ${MAX_URL_MATCHES}`.execute(db);
  return rows;
}

/**
 * Headline candidates from the provenance headline index (table provenance_headlines, kept in step
 * with articles by a trigger; migration 20261122T100000_provenance_headline_index): articles of
 * the window whose candidate key has pg_trgm similarity >= `trgmThreshold` with the candidate key
 * of `text`, best first. The candidate key (SQL provenance_headline_key) is the normalised
 * headline (normalizeHeadline, ported to SQL) with each word cut to its first 4 characters: short,
 * free of stop words and word forms, so the GIN scan and the recheck of each row are cheap and a
 * rewording scores high. Only statuses approved, submitted and scheduled are indexed (sponsored
 * posts never). The thresholds are set for this transaction only.
 *
 * Distinctive words: when the query key mixes common words (provenance_common_words: in >= 1% of
 * the window's headlines, refreshed hourly) with rarer ones, a candidate must also contain the
 * rarer ones (pg_trgm word similarity >= DISTINCTIVE_WORD_SIMILARITY, checked by the same GIN
 * index). Without it every headline that shares a stock phrase ("despite regulatory pressure") with
 * the query passes the index and is rechecked one by one, which was the slowest part of the check;
 * a rewording keeps its distinctive words (names, figures), so it is still found.
 */
export async function headlineCandidates(db: Db, text: string, since: Date, opts: { trgmThreshold: number; limit: number; statuses?: readonly string[] }): Promise<ArticleHit[]> {
  const { rows: keyRows } = await sql<{ key: string; common: string[] }>`
    SELECT k.key, coalesce(array_agg(c.word) FILTER (WHERE c.word IS NOT NULL), '{}') AS common
    FROM (SELECT provenance_headline_key(${text}) AS key) k
    LEFT JOIN provenance_common_words c ON c.word = ANY(string_to_array(k.key, ' '))
    GROUP BY k.key`.execute(db);
  const key = keyRows[0]?.key ?? '';
  if (key === '') return [];
  const common = new Set(keyRows[0].common);
  const rare = key.split(' ').filter((w) => !common.has(w));
  const distinctive = common.size > 0 && rare.length > 0 ? rare.join(' ') : null;
  return db.transaction().execute(async (trx) => {
    await sql`SELECT set_config('pg_trgm.similarity_threshold', ${String(opts.trgmThreshold)}, true),
                     set_config('pg_trgm.word_similarity_threshold', ${String(DISTINCTIVE_WORD_SIMILARITY)}, true)`.execute(trx);
    const { rows } = await sql<ArticleHit>`
      SELECT a.id, a.headline, a.source, a.normalized_url, a.created_at AS seen_at
      FROM (
        SELECT article_id, similarity(headline_key, ${key}) AS sim
        FROM provenance_headlines
        WHERE headline_key % ${key} ${distinctive === null ? sql`` : sql`AND headline_key %> ${distinctive}`}
          AND status = ANY(${(opts.statuses ?? CURATED_STATUSES) as string[]}) AND created_at >= ${since}
        ORDER BY sim DESC, article_id DESC
        LIMIT ${opts.limit}
      ) c
      JOIN articles a ON a.id = c.article_id
      ORDER BY c.sim DESC, c.article_id DESC`.execute(trx);
    return rows;
  });
}

/**
 * pg_trgm word similarity the query's distinctive words need with some run of a candidate's key:
 * 0.3 lets a key that contains one of up to three distinctive words (or a typo of one) through.
 */
const DISTINCTIVE_WORD_SIMILARITY = 0.3;

/** A key word in at least this share of the window's indexed headlines (and COMMON_WORD_MIN_ARTICLES) is common. */
const COMMON_WORD_SHARE = 0.01;
const COMMON_WORD_MIN_ARTICLES = 50;

/** Recomputes provenance_common_words from the index rows created since `since`; returns how many words are common. */
export async function refreshCommonWords(db: Db, since: Date): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await sql`DELETE FROM provenance_common_words`.execute(trx);
    const r = await sql`
      INSERT INTO provenance_common_words (word, articles)
      SELECT w, count(*)::int
      FROM provenance_headlines, unnest(string_to_array(headline_key, ' ')) w
      WHERE created_at >= ${since}
      GROUP BY w
      HAVING count(*) >= greatest(${COMMON_WORD_MIN_ARTICLES}::int, ${COMMON_WORD_SHARE}::float8 * (SELECT count(*) FROM provenance_headlines WHERE created_at >= ${since}))`.execute(
      trx,
    );
    return Number(r.numAffectedRows ?? 0);
  });
}

/** Deletes provenance headline index rows of articles created before `before`; returns how many. */
export async function pruneHeadlineIndex(db: Db, before: Date): Promise<number> {
  const r = await db.deleteFrom('provenance_headlines').where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

async function wireReceiptsFor(db: Db, normalizedUrls: string[], since: Date): Promise<ReceiptInput[]> {
  if (normalizedUrls.length === 0) return [];
  const { rows } = await sql<ReceiptInput>`
    SELECT r.source_name, r.source_url, r.item_url, r.ingested_at, r.publisher_claimed_at
    FROM wire_items w JOIN wire_receipts r ON r.wire_item_id = w.id
    WHERE w.normalized_url = ANY(${normalizedUrls}) AND r.ingested_at >= ${since}
    ORDER BY r.ingested_at, r.id
    LIMIT ${MAX_RECEIPTS}`.execute(db);
  return rows;
}

interface MatcherOptions {
  now: Date;
  /** pg_trgm similarity a candidate needs to be fetched at all (PROVENANCE_TRGM_THRESHOLD). */
  trgmThreshold: number;
  /** How many trigram candidates are scored with string-similarity. */
  candidateLimit?: number;
  /** Which article statuses count as coverage (wire promotion also counts the editors' queue). */
  statuses?: readonly string[];
}

/** Scored headline matches (string-similarity on normalised headlines) at or above the threshold. */
async function headlineMatches(db: Db, text: string, since: Date, opts: MatcherOptions): Promise<MatchInput[]> {
  const candidates = await headlineCandidates(db, text, since, { trgmThreshold: opts.trgmThreshold, limit: opts.candidateLimit ?? 50, statuses: opts.statuses });
  const out: MatchInput[] = [];
  for (const c of candidates) {
    const similarity = headlineSimilarity(text, c.headline);
    if (similarity >= HEADLINE_MATCH_THRESHOLD) out.push({ ...c, similarity, method: 'headline' });
  }
  return out;
}

/**
 * The provenance check: URL first (normalised URL equality over the last 30 days of curated
 * articles and wire receipts); headline similarity when only text is given, or when the URL
 * matched no article and text is given too.
 */
export async function checkProvenance(db: Db, input: { url?: string; text?: string }, opts: MatcherOptions): Promise<ProvenanceCheckResult> {
  const since = new Date(opts.now.getTime() - LOOKBACK_MS);
  const normalizedUrl = input.url !== undefined ? normalizeUrl(input.url) : null;
  const methods: ('url' | 'headline')[] = [];
  let matches: MatchInput[] = [];
  const receiptUrls = new Set<string>();
  if (normalizedUrl) {
    methods.push('url');
    receiptUrls.add(normalizedUrl);
    matches = (await articlesByUrl(db, normalizedUrl, since, opts.statuses)).map((a) => ({ ...a, similarity: 1, method: 'url' as const }));
  }
  const text = input.text?.trim();
  if (text && matches.length === 0) {
    methods.push('headline');
    matches = await headlineMatches(db, text, since, opts);
    for (const m of matches) receiptUrls.add(m.normalized_url);
  }
  const [receipts, stories] = await Promise.all([
    wireReceiptsFor(db, [...receiptUrls], since),
    matchStories(
      db,
      matches.map((m) => m.id),
      [...receiptUrls],
      since,
    ),
  ]);
  return buildCheckResult({ normalizedUrl, matches, receipts, methods, now: opts.now, stories });
}

// ---------------------------------------------------------------------------------------------
// Search

interface SearchHit {
  id: number;
  headline: string;
  url: string;
  normalized_url: string;
  source: string;
  tags: string[];
  published_at: Date | null;
  created_at: Date;
  relevance: number;
}

/**
 * Curated articles published within `days` that match `q` by English full text or by trigram word
 * similarity (pg_trgm `<%`: q is close to some run of words of the headline, default threshold
 * 0.6, which also forgives typos), ranked by word similarity + normalised ts_rank, newest first on
 * ties.
 */
export async function searchCurated(db: Db, q: string, days: number, limit: number, now = new Date()): Promise<SearchHit[]> {
  const since = new Date(now.getTime() - days * 86_400_000);
  const { rows } = await sql<SearchHit>`
    WITH query AS (SELECT websearch_to_tsquery('english', ${q}) AS tsq)
    SELECT a.id, a.headline, a.url, a.normalized_url, a.source, a.tags, a.published_at, a.created_at,
           round((word_similarity(${q}, a.headline) + ts_rank(to_tsvector('english', a.headline), query.tsq, 32))::numeric, 4) AS relevance
    FROM articles a, query
    WHERE a.status = 'approved' AND a.sponsored IS NULL
      AND COALESCE(a.published_at, a.created_at) >= ${since}
      AND (to_tsvector('english', a.headline) @@ query.tsq OR ${q} <% a.headline)
    ORDER BY relevance DESC, COALESCE(a.published_at, a.created_at) DESC, a.id DESC
    LIMIT ${limit}`.execute(db);
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Receipts

export async function receiptArticle(db: Db, id: number) {
  return db
    .selectFrom('articles')
    .select(['id', 'headline', 'url', 'normalized_url', 'source', 'tags', 'status', 'origin', 'created_at', 'published_at', 'sponsored'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function topTldr(db: Db, articleId: number) {
  return db
    .selectFrom('yaps')
    .select(['id', 'text', 'tags', 'score', 'created_at'])
    .where('article_id', '=', articleId)
    .where(sql<boolean>`'tldr' = ANY(tags)`)
    .orderBy('score', 'desc')
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst();
}

export async function topYaps(db: Db, articleId: number, limit: number) {
  return db
    .selectFrom('yaps')
    .leftJoin('users', 'users.id', 'yaps.user_id')
    .select(['yaps.id', 'yaps.text', 'yaps.tags', 'yaps.score', 'yaps.created_at', 'users.username', 'users.account_type'])
    .where('yaps.article_id', '=', articleId)
    .orderBy('yaps.score', 'desc')
    .orderBy('yaps.id', 'asc')
    .limit(limit)
    .execute();
}

/** The wire item an article was promoted from, with every source that carried it. */
export async function ingestReceipt(db: Db, articleId: number) {
  const item = await db
    .selectFrom('wire_items')
    .select(['id', 'url', 'normalized_url', 'title', 'source_name', 'source_url', 'ingested_at', 'publisher_claimed_at', 'promoted_at', 'promoted_by', 'score', 'novelty'])
    .where('promoted_article_id', '=', articleId)
    .executeTakeFirst();
  if (!item) return null;
  const receipts = await db
    .selectFrom('wire_receipts')
    .select(['source_name', 'source_url', 'item_url', 'ingested_at', 'publisher_claimed_at'])
    .where('wire_item_id', '=', item.id)
    .orderBy('ingested_at')
    .orderBy('id')
    .execute();
  return { item, receipts };
}
