/**
 * Articles: submission with duplicate detection, the feed, the full record, clicks, editorial
 * transitions and edits. Rows are mapped to the API's field names by toArticleItem/toArticleRecord.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { executePrepared, type Db } from '../platform/db.js';
import type { Changes } from './rules/article-edit.js';
import type { PageMeta } from './rules/page-title.js';
import type { ArticleStatus } from './rules/state.js';
import type { StoredDecisionReason } from './rules/moderation.js';
import { slugify } from '../platform/url/slug.js';
import { type EventInput, recordedWith } from '../platform/events/log.js';
import { hotTermsJson } from './hot-score-queries.js';

/** A normalised URL submitted within this many days is a duplicate (any status). */
export const DUPLICATE_WINDOW_DAYS = 30;

export type FeedStatus = 'approved' | 'submitted' | 'all';
export type FeedSort = 'hot' | 'new' | 'top';

/** Columns of a feed item, from `articles AS a` joined to `article_hot_scores AS h`. */
export const itemColumns = [
  'a.id',
  'a.slug',
  'a.headline',
  'a.url',
  'a.status',
  'a.origin',
  'a.source',
  'a.created_at',
  'a.published_at',
  'a.token_addresses',
  'a.token_symbols',
  'a.issuer_name',
  'a.issuer_website',
  'a.tags',
  'a.content_type',
  'a.clicks',
  'a.vote_count',
  'a.votes_cast',
  'a.yap_count',
  'h.hot_score',
  'a.sponsored',
  'a.story_id',
] as const;

interface TldrJson {
  yap_id: number;
  text: string;
  score: number;
  tags: string[];
  created_at: string;
  author_id: number;
  author_username: string | null;
}

export interface ArticleItemRow {
  id: number;
  slug: string;
  headline: string;
  url: string;
  status: string;
  origin: string;
  source: string;
  created_at: Date;
  published_at: Date | null;
  token_addresses: string[];
  token_symbols: string[];
  issuer_name: string | null;
  issuer_website: string | null;
  tags: string[];
  content_type: string | null;
  clicks: number;
  vote_count: number;
  votes_cast: number;
  yap_count: number;
  hot_score: number;
  sponsored: unknown;
  top_tldr: TldrJson | null;
  story_id: number | null;
  /** The article's asset tags (article_assets, not removed), by salience; absent from rows built elsewhere. */
  assets?: ArticleAssetJson[];
}

interface ArticleAssetJson {
  id: string;
  symbol: string;
  name: string;
  salience: number;
  primary: boolean;
}

/** assets: the article's tags that are not removed, joined to the registry, by salience. */
export const assetsJson = sql<ArticleAssetJson[]>`COALESCE((
  SELECT json_agg(json_build_object('id', s.id, 'symbol', s.symbol, 'name', s.name, 'salience', round(aa.salience::numeric, 2), 'primary', aa.is_primary)
                  ORDER BY aa.salience DESC, s.id)
  FROM article_assets aa JOIN assets s ON s.id = aa.asset_id
  WHERE aa.article_id = a.id AND NOT aa.removed), '[]'::json)`;

/** top_tldr: the best-scored yap tagged tldr with score >= 0 (ties: the older one), via the partial index yaps_article_tldr_idx. */
export const tldrJson = sql<TldrJson | null>`(
  SELECT json_build_object('yap_id', y.id, 'text', y.text, 'score', y.score, 'tags', y.tags, 'created_at', y.created_at,
                           'author_id', y.user_id, 'author_username', u.username)
  FROM yaps y JOIN users u ON u.id = y.user_id
  WHERE y.article_id = a.id AND 'tldr' = ANY (y.tags) AND y.score >= 0
  ORDER BY y.score DESC, y.id
  LIMIT 1)`;

type TopWindow = 'day' | 'week' | 'month' | 'year' | 'all';

/** The feed's filters (sort and page do not change which articles match). */
export interface FeedFilter {
  status: FeedStatus;
  /** Lower-cased token contract address. */
  tokenAddress?: string;
  /** Any of these tags (lower-case slugs). */
  tags?: string[];
  /** Any of these token symbols (upper-cased; matched case-insensitively). */
  tokenSymbols?: string[];
  /** Tagged with any of these assets (canonical ids). */
  assets?: string[];
  /** The article's source (lower-cased host or name). */
  source?: string;
  /** published_at for approved, created_at otherwise: since inclusive, until exclusive. */
  since?: Date;
  until?: Date;
  /** sort=top only: the time window (same column as since/until), relative to now. */
  window?: TopWindow;
}

export interface FeedQuery extends FeedFilter {
  sort: FeedSort;
  page: number;
  perPage: number;
}

const WINDOW_INTERVAL: Record<Exclude<TopWindow, 'all'>, string> = { day: '1 day', week: '7 days', month: '1 month', year: '1 year' };

/** The time column of since/until and the top window: publication for approved, submission otherwise. */
export const feedTimeColumn = (status: FeedStatus) => (status === 'approved' ? 'a.published_at' : 'a.created_at');

/** True when the filter needs columns of articles beyond status (the hot sort then joins articles). */
function hasArticleFilters(q: FeedFilter): boolean {
  return (
    q.tokenAddress !== undefined ||
    Boolean(q.tags?.length) ||
    Boolean(q.tokenSymbols?.length) ||
    Boolean(q.assets?.length) ||
    q.source !== undefined ||
    q.since !== undefined ||
    q.until !== undefined ||
    (q.window !== undefined && q.window !== 'all')
  );
}

/**
 * `a` has a visible asset tag among the asset ids `assetIds` selects (token filters match tagged
 * articles too). Written as `a.id = ANY(ARRAY(...))`, the tagged ids computed once from
 * article_assets' (asset_id, article_id) index, so that ORed with a token field's condition the
 * planner can combine the field's GIN index with the primary key (a BitmapOr).
 */
function taggedWith(assetIds: RawBuilder<unknown>) {
  return sql<SqlBool>`a.id = ANY(ARRAY(SELECT aa.article_id FROM article_assets aa WHERE NOT aa.removed AND aa.asset_id IN (${assetIds})))`;
}

/** `articles AS a` names any of `symbols` (upper-case) in its token_symbols or is tagged with an asset of one of those symbols. */
export function tokenSymbolsMatch(symbols: readonly string[]) {
  const tagged = taggedWith(sql`SELECT s.id FROM assets s WHERE upper(s.symbol) = ANY(${sql.val(symbols)}::text[])`);
  return sql<SqlBool>`(feed_upper_symbols(a.token_symbols) && ${sql.val(symbols)}::text[] OR ${tagged})`;
}

/** `articles AS a` names `address` (lower-case) in its token_addresses or is tagged with an asset deployed at that contract (asset_deployments_address_idx). */
function tokenAddressMatch(address: string) {
  const tagged = taggedWith(sql`SELECT d.asset_id FROM asset_deployments d WHERE lower(substring(d.caip19 from '/(?:erc20|token):([^/]+)$')) = ${address}`);
  return sql<SqlBool>`(a.token_addresses @> ARRAY[${address}]::text[] OR ${tagged})`;
}

/**
 * The feed filter on `articles AS a` (status from `h` when the page is picked from
 * article_hot_scores). Each condition matches an index: token_addresses and tags GIN, token
 * symbols through the GIN index on feed_upper_symbols(token_symbols), source through
 * lower(source), times through the (status, time) btrees. A token address or symbol also matches an
 * article tagged with an asset of that symbol or contract (article_assets by primary key).
 */
export function feedWhere(q: FeedFilter, statusFrom: 'a' | 'h' = 'a') {
  return (eb: any): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [];
    if (q.status !== 'all') parts.push(eb(statusFrom === 'a' ? 'a.status' : 'h.status', '=', q.status));
    if (q.tokenAddress !== undefined) parts.push(tokenAddressMatch(q.tokenAddress));
    if (q.tags?.length) parts.push(sql<SqlBool>`a.tags && ${sql.val(q.tags)}::text[]`);
    if (q.tokenSymbols?.length) parts.push(tokenSymbolsMatch(q.tokenSymbols));
    if (q.assets?.length)
      parts.push(sql<SqlBool>`EXISTS (SELECT 1 FROM article_assets aa WHERE aa.article_id = a.id AND NOT aa.removed AND aa.asset_id = ANY(${sql.val(q.assets)}::text[]))`);
    if (q.source !== undefined) parts.push(sql<SqlBool>`lower(a.source) = ${q.source}`);
    const time = sql.ref(feedTimeColumn(q.status));
    if (q.since !== undefined) parts.push(sql<SqlBool>`${time} >= ${q.since}`);
    if (q.until !== undefined) parts.push(sql<SqlBool>`${time} < ${q.until}`);
    if (q.window !== undefined && q.window !== 'all') parts.push(sql<SqlBool>`${time} >= now() - ${WINDOW_INTERVAL[q.window]}::interval`);
    return parts.length ? eb.and(parts) : sql<SqlBool>`true`;
  };
}

/**
 * One page of the feed in two steps. The page's ids are picked from one index (status + sort key, or
 * the token GIN index), reading only what the filter and the sort need; then the picked rows are
 * joined to articles and article_hot_scores by primary key, with top_tldr as a correlated LIMIT 1
 * probe per picked row only (no N+1 round trips).
 *   hot: hot_score desc, from article_hot_scores' (status, hot_score, article_id) index (its copy of
 *   status);  new: published_at desc for approved (publication order), created_at desc otherwise;
 *   top: vote_count desc. Ties: id desc.
 */
export async function feedPage(db: Db, q: FeedQuery): Promise<ArticleItemRow[]> {
  const rows = await pageQuery(db, q).execute();
  return rows as unknown as ArticleItemRow[];
}

/**
 * A feed page and the total number of matches in one statement: the count is an uncorrelated
 * scalar subquery (run once, with its own plan, typically an index-only scan) carried on every
 * row. A page past the end has no rows to carry it, so the count is then asked for on its own.
 */
export async function feedPageWithCount(db: Db, q: FeedQuery): Promise<{ rows: ArticleItemRow[]; count: number }> {
  const rows = (await pageQuery(db, q).select(countQuery(db, q).as('total_count')).execute()) as unknown as (ArticleItemRow & { total_count: number | string })[];
  if (rows.length === 0) return { rows: [], count: await feedCount(db, q) };
  const count = Number(rows[0].total_count);
  for (const r of rows) delete (r as { total_count?: unknown }).total_count;
  return { rows, count };
}

function pageQuery(db: Db, q: FeedQuery) {
  return db
    .selectFrom(pickPage(db, q))
    .innerJoin('articles as a', 'a.id', 'p.id')
    .innerJoin('article_hot_scores as h', 'h.article_id', 'p.id')
    .select([...itemColumns])
    .select(tldrJson.as('top_tldr'))
    .select(assetsJson.as('assets'))
    .orderBy('p.sort_key', 'desc')
    .orderBy('p.id', 'desc');
}

// Only its type is used: the shape of the joined query builder that pickPage extends.
const _hotJoined = (db: Db) => db.selectFrom('article_hot_scores as h').innerJoin('articles as a', 'a.id', 'h.article_id');

/** The ids of one feed page and their sort key, in feed order (see feedPage). */
function pickPage(db: Db, q: FeedQuery) {
  const offset = (q.page - 1) * q.perPage;
  if (q.sort === 'hot') {
    // Status alone: the (status, hot_score, article_id) index of article_hot_scores. Other filters
    // join articles by primary key (the planner walks the hot index, or starts from a selective
    // filter's index and sorts the few matches).
    const base = hasArticleFilters(q)
      ? db.selectFrom('article_hot_scores as h').innerJoin('articles as a', 'a.id', 'h.article_id')
      : (db.selectFrom('article_hot_scores as h') as any as ReturnType<typeof _hotJoined>);
    return base
      .select(['h.article_id as id', sql.ref<number | Date | null>('h.hot_score').as('sort_key')])
      .where(feedWhere(q, 'h'))
      .orderBy('h.hot_score', 'desc')
      .orderBy('h.article_id', 'desc')
      .limit(q.perPage)
      .offset(offset)
      .as('p');
  }
  const key = q.sort === 'top' ? 'a.vote_count' : feedTimeColumn(q.status);
  return db
    .selectFrom('articles as a')
    .select(['a.id', sql.ref<number | Date | null>(key).as('sort_key')])
    .where(feedWhere(q))
    .orderBy(key, 'desc')
    .orderBy('a.id', 'desc')
    .limit(q.perPage)
    .offset(offset)
    .as('p');
}

/**
 * One match of a feed filter without its time bounds (src/feed/match-lists.ts): `t` the time
 * column (published_at for approved, created_at otherwise) in whole milliseconds since the epoch
 * (null when unset), `c` whether the count counts it (its status on articles), `p` whether a page of
 * `sort` may pick it (hot: its status on article_hot_scores, which must exist; otherwise as `c`).
 */
interface FeedMatchRow {
  id: number;
  t: number | null;
  c: boolean;
  p: boolean;
}

/**
 * Every article matching `q` without since/until/window, in the exact order of feedPage's `sort`
 * (sort key desc, id desc), at most `limit` rows. A filter by since/until over these rows gives
 * the same page and count as feedPage/feedCount with those bounds: times are compared in whole
 * milliseconds, which is exact for bounds that are themselves whole milliseconds (JS Dates).
 */
export async function feedMatches(db: Db, q: FeedFilter & { sort: FeedSort }, limit: number): Promise<FeedMatchRow[]> {
  const s = q.status;
  const time = sql.ref(feedTimeColumn(s));
  const unbounded: FeedFilter = { ...q, status: 'all', since: undefined, until: undefined, window: undefined };
  const counted = s === 'all' ? sql<boolean>`true` : sql<boolean>`a.status = ${s}`;
  const picked = q.sort !== 'hot' ? counted : s === 'all' ? sql<boolean>`h.article_id IS NOT NULL` : sql<boolean>`coalesce(h.status = ${s}, false)`;
  const order = q.sort === 'hot' ? sql`h.hot_score DESC, a.id DESC` : q.sort === 'top' ? sql`a.vote_count DESC, a.id DESC` : sql`${time} DESC, a.id DESC`;
  const rows = await db
    .selectFrom('articles as a')
    .leftJoin('article_hot_scores as h', 'h.article_id', 'a.id')
    .select(['a.id', sql<number | null>`floor(extract(epoch FROM ${time}) * 1000)::float8`.as('t'), counted.as('c'), picked.as('p')])
    .where(feedWhere(unbounded))
    .where(s === 'all' ? sql<SqlBool>`true` : sql<SqlBool>`(a.status = ${s} OR h.status = ${s})`)
    .orderBy(order)
    .limit(limit)
    .execute();
  return rows as FeedMatchRow[];
}

/** Feed items (the columns of feedPage) by id, in no particular order; an article without a hot-score row is left out, as feedPage does. */
export async function feedItemsByIds(db: Db, ids: readonly number[]): Promise<ArticleItemRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('articles as a')
    .innerJoin('article_hot_scores as h', 'h.article_id', 'a.id')
    .select([...itemColumns])
    .select(tldrJson.as('top_tldr'))
    .select(assetsJson.as('assets'))
    .where('a.id', '=', sql<number>`ANY(${sql.val([...ids])}::int[])`)
    .execute();
  return rows as unknown as ArticleItemRow[];
}

/** Total number of articles matching the feed filter (sort and page do not matter). */
export async function feedCount(db: Db, q: FeedFilter): Promise<number> {
  const r = await countQuery(db, q).executeTakeFirstOrThrow();
  return Number(r.n);
}

function countQuery(db: Db, q: FeedFilter) {
  return db
    .selectFrom('articles as a')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(feedWhere(q));
}

export interface ArticleRecordRow extends ArticleItemRow {
  normalized_url: string;
  headline_source: string;
  updated_at: Date;
  scheduled_for: Date | null;
  reviewed_at: Date | null;
  hot_terms: unknown;
  hot_computed_at: Date | null;
  submitter_id: number | null;
  submitter_username: string | null;
  submitter_address: string | null;
  reviewer_id: number | null;
  reviewer_username: string | null;
  decision_reason: string | null;
  decision_note: string | null;
  duplicate_of: number | null;
}

export async function getArticleRecord(db: Db, id: number): Promise<ArticleRecordRow | undefined> {
  const row = await db
    .selectFrom('articles as a')
    .innerJoin('article_hot_scores as h', 'h.article_id', 'a.id')
    .leftJoin('users as s', 's.id', 'a.submitted_by')
    .leftJoin('users as r', 'r.id', 'a.reviewed_by')
    .select([
      ...itemColumns,
      'a.normalized_url',
      'a.headline_source',
      'a.updated_at',
      'a.scheduled_for',
      'a.reviewed_at',
      'h.hot_computed_at',
      's.id as submitter_id',
      's.username as submitter_username',
      's.wallet_address as submitter_address',
      'r.id as reviewer_id',
      'r.username as reviewer_username',
      'a.decision_reason',
      'a.decision_note',
      'a.duplicate_of',
    ])
    .select(tldrJson.as('top_tldr'))
    .select(assetsJson.as('assets'))
    .select(hotTermsJson.as('hot_terms'))
    .where('a.id', '=', id)
    .executeTakeFirst();
  return row as unknown as ArticleRecordRow | undefined;
}

/** Status of an article, or undefined when it does not exist. */
export async function articleStatus(db: Db, id: number): Promise<string | undefined> {
  const r = await db.selectFrom('articles').select('status').where('id', '=', id).executeTakeFirst();
  return r?.status;
}

// ---------------------------------------------------------------------------------------------
// Submission

export interface SubmissionInput {
  url: string;
  normalizedUrl: string;
  headline: string;
  headlineSource: 'supplied' | 'provisional';
  source: string;
  userId: number;
}

const eventColumns = ['id', 'slug', 'status', 'headline', 'origin', 'created_at', 'published_at', 'sponsored', 'story_id'] as const;

interface DuplicateInfo {
  id: number;
  status: string;
  headline: string;
  created_at: Date;
}

/** Serialise the submissions of one normalised URL until the transaction ends (transaction-scoped advisory lock). */
export async function lockSubmissionUrl(trx: Db, normalizedUrl: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${'submission:' + normalizedUrl}, 0))`.execute(trx);
}

/**
 * The duplicate check, which also draws the new article's id and reads the transaction's now() (the
 * created_at default), so news.submitted can be built before the INSERT and recorded by the INSERT
 * statement itself. The duplicate is a scalar subquery (a LEFT JOIN LATERAL cost ~50 µs more to plan,
 * at every call), and a duplicate wastes the id drawn (ids may have gaps).
 */
export async function duplicateCheck(trx: Db, normalizedUrl: string): Promise<{ duplicate: DuplicateInfo | null; newId: number; now: Date }> {
  const pre = await sql<{ dup: [number, string, string, string] | null; new_id: number; now: Date }>`
    SELECT nextval('articles_id_seq')::int AS new_id, now() AS now,
           (SELECT json_build_array(id, status, headline, created_at) FROM articles
            WHERE normalized_url = ${normalizedUrl}
              AND created_at > now() - make_interval(days => ${DUPLICATE_WINDOW_DAYS}::int)
            ORDER BY created_at DESC
            LIMIT 1) AS dup`.execute(trx);
  const p = pre.rows[0];
  if (p.dup === null) return { duplicate: null, newId: p.new_id, now: p.now };
  const [id, status, headline, createdAt] = p.dup;
  return { duplicate: { id, status, headline, created_at: new Date(createdAt) }, newId: p.new_id, now: p.now };
}

/**
 * INSERT the submitted article with the id and slug drawn for it, SELECTing FROM the recording
 * function: the article and its events in one statement. A submission's article has no tags or
 * tokens yet (editors add them). `events` null: the same INSERT without the event log (the
 * benchmark's baseline, scripts/bench/lib/submission-baseline.ts).
 */
export async function insertSubmittedArticle(trx: Db, row: { id: number; slug: string }, input: SubmissionInput, events: readonly EventInput[] | null) {
  const values = [
    sql<number>`${row.id}::int`.as('id'),
    sql<string>`${row.slug}::text`.as('slug'),
    sql<string>`${input.headline}::text`.as('headline'),
    sql<string>`${input.headlineSource}::text`.as('headline_source'),
    sql<string>`${input.url}::text`.as('url'),
    sql<string>`${input.normalizedUrl}::text`.as('normalized_url'),
    sql<string>`${input.source}::text`.as('source'),
    sql<string>`'submitted'`.as('status'),
    sql<string>`'manual'`.as('origin'),
    sql<number>`${input.userId}::int`.as('submitted_by'),
  ];
  const recorded = { tags: [], token_addresses: [], token_symbols: [] };
  return trx
    .insertInto('articles')
    .columns(['id', 'slug', 'headline', 'headline_source', 'url', 'normalized_url', 'source', 'status', 'origin', 'submitted_by'])
    .expression(events === null ? trx.selectNoFrom(values) : trx.selectFrom(recordedWith(events, recorded)).select(values))
    .returning([...eventColumns])
    .executeTakeFirstOrThrow();
}

/**
 * The UPDATE that writes a page title over a provisional headline (never over an editor's or
 * submitter's) with the page's description and claimed time, returning the event's columns and the
 * token fields: writePageTitle runs it as it is; the assets feature adds the tagging of the new
 * headline to it (one statement).
 */
export function pageTitleUpdate(trx: Db, id: number, page: PageMeta) {
  return trx
    .updateTable('articles')
    .set({
      headline: page.title,
      headline_source: 'page_title',
      page_title_failure: null,
      page_description: page.description,
      page_published_at: page.publishedAt,
      slug: sql`CASE WHEN published_at IS NULL THEN ${slugify(page.title)} ELSE slug END`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('headline_source', '=', 'provisional')
    .returning([...eventColumns, 'token_symbols', 'token_addresses']);
}

export type PageTitleUpdate = ReturnType<typeof pageTitleUpdate>;

/**
 * Fill in the page title of a submission that still has its provisional headline (never overwrites
 * an editor's or submitter's); undefined when it no longer has one.
 */
export async function writePageTitle(trx: Db, id: number, page: PageMeta) {
  return (await executePrepared(trx, pageTitleUpdate(trx, id, page))).rows[0];
}

export type PageTitleRow = NonNullable<Awaited<ReturnType<typeof writePageTitle>>>;

/** The page cannot give a title (a reason no retry fixes): the page-title sweep leaves the article alone. */
export async function recordPageTitleFailure(db: Db, id: number, reason: string): Promise<void> {
  await db
    .updateTable('articles')
    .set({ page_title_failure: reason.slice(0, 200) })
    .where('id', '=', id)
    .where('headline_source', '=', 'provisional')
    .execute();
}

/**
 * Submissions still on their provisional headline whose page-title job was lost or failed after its
 * retries: created between 24 hours and 2 minutes ago (beyond the job's own retry schedule), no
 * permanent failure recorded, and fewer than `maxSweeps` sweeps so far, the n-th sweep waiting until
 * the article is 2^(n+1) minutes old (2, 4, 8 minutes for three sweeps). Each returned article has
 * its sweep counted in the same statement (so two sweeps running at once do not both take it).
 */
export async function claimPageTitleSweep(db: Db, opts: { maxSweeps: number; limit: number }) {
  const r = await sql<{ id: number; page_title_sweeps: number }>`
    UPDATE articles a SET page_title_sweeps = a.page_title_sweeps + 1
    FROM (
      SELECT id FROM articles
      WHERE headline_source = 'provisional'
        AND page_title_failure IS NULL
        AND page_title_sweeps < ${opts.maxSweeps}
        AND created_at > now() - interval '24 hours'
        AND created_at < now() - make_interval(mins => 2 * power(2, page_title_sweeps)::int)
      ORDER BY created_at
      LIMIT ${opts.limit}
      FOR UPDATE SKIP LOCKED
    ) due
    WHERE a.id = due.id
    RETURNING a.id, a.page_title_sweeps`.execute(db);
  return r.rows;
}

export async function getArticleForEvent(db: Db, id: number) {
  return db
    .selectFrom('articles')
    .select([...eventColumns, 'url', 'headline_source'])
    .where('id', '=', id)
    .executeTakeFirst();
}

interface UrlCheckRow {
  id: number;
  status: string;
  headline: string;
  created_at: Date;
  submitter_id: number | null;
  submitter_username: string | null;
  submitter_address: string | null;
}

/** Exact match on the URL as submitted (spec: different query strings or trailing slashes are different URLs); the newest wins. */
export async function findByExactUrl(db: Db, url: string): Promise<UrlCheckRow | undefined> {
  return db
    .selectFrom('articles as a')
    .leftJoin('users as s', 's.id', 'a.submitted_by')
    .select(['a.id', 'a.status', 'a.headline', 'a.created_at', 's.id as submitter_id', 's.username as submitter_username', 's.wallet_address as submitter_address'])
    .where('a.url', '=', url)
    .orderBy('a.created_at', 'desc')
    .orderBy('a.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------
// Clicks

/** Count one click on an approved article; returns false when the article is not approved. */
export async function addClick(db: Db, id: number): Promise<boolean> {
  const r = await db
    .updateTable('articles')
    .set({ clicks: sql`clicks + 1` })
    .where('id', '=', id)
    .where('status', '=', 'approved')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Record that the user opened the article through its click-through (the first time only). */
export async function addReader(db: Db, articleId: number, userId: number): Promise<void> {
  await db
    .insertInto('article_readers')
    .values({ article_id: articleId, user_id: userId })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function articleUrl(db: Db, id: number) {
  return db.selectFrom('articles').select(['id', 'url', 'status']).where('id', '=', id).executeTakeFirst();
}

// ---------------------------------------------------------------------------------------------
// Editorial workflow (the use cases, with their transaction and policy, are in src/editor/service.ts)

/** The columns a transition reads under the article's row lock (FOR NO KEY UPDATE). */
export async function lockForReview(db: Db, id: number) {
  return db.selectFrom('articles').select(['id', 'status', 'origin', 'scheduled_for', 'published_at']).where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
}

export async function articleExists(db: Db, id: number): Promise<boolean> {
  const r = await db.selectFrom('articles').select('id').where('id', '=', id).executeTakeFirst();
  return r !== undefined;
}

/** What a transition writes on the article: its new status, the reviewer, and the decision (null clears it). */
interface ReviewWrite {
  id: number;
  to: ArticleStatus;
  editorId: number;
  scheduledFor: Date | null;
  reason: StoredDecisionReason | null;
  note: string | null;
  duplicateOf: number | null;
  /** Approve: published_at = now(). */
  publish: boolean;
}

export async function writeReview(db: Db, w: ReviewWrite) {
  return db
    .updateTable('articles')
    .set({
      status: w.to,
      reviewed_by: w.editorId,
      reviewed_at: sql`now()`,
      updated_at: sql`now()`,
      scheduled_for: w.scheduledFor,
      decision_reason: w.reason,
      decision_note: w.note,
      duplicate_of: w.duplicateOf,
      ...(w.publish ? { published_at: sql`now()` } : {}),
    })
    .where('id', '=', w.id)
    .returning([...eventColumns, 'scheduled_for'])
    .executeTakeFirstOrThrow();
}

/** One row of the edit history (and of the moderation log). */
interface ArticleEditRow {
  articleId: number;
  editorId: number;
  changes: Changes;
  action: string;
  statusAt: string;
  reason?: StoredDecisionReason | null;
  note?: string | null;
  duplicateOf?: number | null;
}

export async function insertArticleEdit(db: Db, e: ArticleEditRow): Promise<void> {
  await db
    .insertInto('article_edits')
    .values({
      article_id: e.articleId,
      editor_id: e.editorId,
      changes: JSON.stringify(e.changes),
      action: e.action,
      status_at: e.statusAt,
      ...(e.reason !== undefined ? { reason: e.reason } : {}),
      ...(e.note !== undefined ? { note: e.note } : {}),
      ...(e.duplicateOf !== undefined ? { duplicate_of: e.duplicateOf } : {}),
    })
    .execute();
}

/** scheduled -> approved when the article is still scheduled and due (within a second); undefined otherwise. */
export async function publishScheduledRow(db: Db, id: number) {
  return db
    .updateTable('articles')
    .set({ status: 'approved', published_at: sql`now()`, updated_at: sql`now()`, scheduled_for: null })
    .where('id', '=', id)
    .where('status', '=', 'scheduled')
    .where('scheduled_for', '<=', sql<Date>`now() + interval '1 second'`)
    .returning([...eventColumns])
    .executeTakeFirst();
}

/** Scheduled articles due by now (publish-due's sweep), at most `limit`. */
export async function dueScheduledIds(db: Db, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('articles').select('id').where('status', '=', 'scheduled').where('scheduled_for', '<=', new Date()).limit(limit).execute();
  return rows.map((r) => r.id);
}

/** Of the given articles, those still scheduled, with their time (the relay enqueues their delayed publish). */
export async function stillScheduled(db: Db, ids: number[]): Promise<{ id: number; scheduled_for: Date }[]> {
  const rows = await db.selectFrom('articles').select(['id', 'scheduled_for']).where('id', 'in', ids).where('status', '=', 'scheduled').execute();
  return rows.flatMap((r) => (r.scheduled_for ? [{ id: r.id, scheduled_for: r.scheduled_for }] : []));
}

/** The editable fields of an article, read under its row lock. */
export async function lockForEdit(db: Db, id: number) {
  return db
    .selectFrom('articles')
    .select(['id', 'status', 'published_at', 'headline', 'tags', 'token_addresses', 'token_symbols', 'issuer_name', 'issuer_website', 'content_type'])
    .where('id', '=', id)
    .forNoKeyUpdate()
    .executeTakeFirst();
}

/** Write an edit's columns (the keys of diffEdit over EditableFields, plus headline_source and slug). */
export async function writeEdit(db: Db, id: number, patch: Record<string, unknown>): Promise<void> {
  const set = { ...patch, updated_at: sql`now()` };
  await db
    .updateTable('articles')
    .set(set as never)
    .where('id', '=', id)
    .execute();
}

/** An article's edit history, oldest first (GET /news/{id}/edits and the provenance record). */
export async function listEdits(db: Db, articleId: number) {
  return db
    .selectFrom('article_edits as e')
    .leftJoin('users as u', 'u.id', 'e.editor_id')
    .select(['e.id', 'e.editor_id', 'u.username as editor_username', 'e.changes', 'e.created_at'])
    .where('e.article_id', '=', articleId)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
}
