/**
 * The feed's use cases: a page of GET /news/ for a caller (validation of parameter combinations,
 * the signed-in rule for status=submitted|all, the shared cached page and the personal overlay)
 * and a syndication document. The REST routes and the MCP `feed` tool call the same functions on
 * the same FeedState, the one its listArticles route was built with (feedStateOf).
 *
 * Every caller reads the same cached page of a query string (src/feed/cache.ts), whatever its
 * credentials: the page holds nothing personal. What is personal is added on top: a caller with an
 * account gets `my_vote` on every item (src/feed/entries.ts).
 */
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { etagOf } from '../platform/http/conditional.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import type { RouteDef } from '../platform/http/route.js';
import {
  collapsedFeedPage,
  DEFAULT_PER_PAGE,
  feedPage,
  feedPageWithCount,
  pageLinks,
  requireSignedIn,
  toArticleItem,
  type CallerCtx,
  type FeedFilter,
  type FeedSort,
  type FeedStatus,
  type PageRequest,
} from '../articles/index.js';
import { FEED_CACHE_TTL_MS, FEED_GEN_CHECK_MS, FeedCache } from './cache.js';
import { decodeEntry, encodeEntry, LaneKeys, listedBody, lmKeyOf, PersonalPages, type Entry, type PageBytes } from './entries.js';
import { FeedMatchLists } from './match-lists.js';
import { requireKnownAssets } from '../assets/index.js';
import { toCollapsedItem, type Collapse } from './collapse.js';

/** What the feed's routes (and the MCP feed tool) share: the feed cache, match lists, personal overlays and lane keys of this process. */
export interface FeedState {
  deps: AppDeps;
  cache: FeedCache;
  personal: PersonalPages;
  lists: FeedMatchLists;
  laneKeys: LaneKeys;
  /** One Date per generation seen, not one per page: its HTTP-date string is then kept (httpDate). */
  generationDate(at: number): Date;
  base: string;
  homeUrl: string;
}

/** feedCacheTtlMs / feedGenCheckMs: the feed cache's FEED_CACHE_TTL_MS and FEED_GEN_CHECK_MS (tests and benches vary them). */
export interface FeedOptions {
  feedCacheTtlMs?: number;
  feedGenCheckMs?: number;
}

export function feedState(deps: AppDeps, opts: FeedOptions): FeedState {
  const cache = new FeedCache(deps.redis, deps.config.QUEUE_PREFIX, opts.feedCacheTtlMs ?? FEED_CACHE_TTL_MS, opts.feedGenCheckMs ?? FEED_GEN_CHECK_MS);
  let generationSeen = { at: NaN, date: new Date(0) };
  const generationDate = (at: number): Date => (generationSeen.at === at ? generationSeen : (generationSeen = { at, date: new Date(at) })).date;
  const base = deps.config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  return {
    deps,
    cache,
    personal: new PersonalPages(deps),
    lists: new FeedMatchLists(deps.db, cache.ttl, (row) => JSON.stringify(toArticleItem(row))),
    laneKeys: new LaneKeys(),
    generationDate,
    base,
    homeUrl: `${base}${API_PREFIX}/news/`,
  };
}

/** The state each listArticles route was built with: what the MCP feed tool serves its pages from. */
const statesByRoute = new WeakMap<RouteDef, FeedState>();

export function rememberFeedState(def: RouteDef, s: FeedState): RouteDef {
  statesByRoute.set(def, s);
  return def;
}

/** The feed state behind a listArticles route (the one the app mounts). */
function feedStateOf(def: RouteDef): FeedState {
  const s = statesByRoute.get(def);
  if (!s) throw new Error(`feed: route ${def.operationId} was not built by feedRoutes`);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Filters

export interface FilterQuery {
  asset?: string[];
  token_address?: string;
  tag?: string[];
  token_symbol?: string[];
  source?: string;
  since?: Date;
  until?: Date;
  t?: 'day' | 'week' | 'month' | 'year' | 'all';
}

/** GET /news/'s parsed query. `collapse=story`: one item per story (src/feed/collapse.ts). */
export type ListQuery = FilterQuery & { status: FeedStatus; sort_type: FeedSort; page: number; per_page?: number; limit?: number; collapse?: Collapse };

function badCombination(param: string, message: string): DomainError {
  return new DomainError('validation_failed', `invalid request: query.${param}`, { fields: [{ path: `query.${param}`, code: 'conflict', message }] });
}

/** The validated filter of a feed request (combination rules that a single parameter's schema cannot state). */
export function feedFilterOf(query: FilterQuery, status: FeedStatus, sort: FeedSort): FeedFilter {
  if (query.t !== undefined && sort !== 'top') throw badCombination('t', 'the window t applies to sort_type=top only');
  if (query.since && query.until && query.until.getTime() <= query.since.getTime()) throw badCombination('until', 'must be later than since');
  return {
    status,
    tokenAddress: query.token_address,
    tags: query.tag,
    tokenSymbols: query.token_symbol,
    ...(query.asset ? { assets: query.asset } : {}),
    source: query.source,
    since: query.since,
    until: query.until,
    window: query.t,
  };
}

// ---------------------------------------------------------------------------------------------
// Pages of GET /news/

type PageQuery = FeedFilter & { sort: FeedSort; page: number; perPage: number; collapse?: Collapse };

/**
 * A time-bounded page (a new `since` is a new query string, which no cache holds): picked from the
 * filter's match list, nothing stored, no Redis round trip while this process knows the current
 * generation. Last-Modified is when this process first saw the generation: every change to an
 * article starts a new one, so these bytes cannot be older. Undefined when no match list applies.
 */
async function pickedPage(s: FeedState, request: PageRequest, q: PageQuery): Promise<Entry | undefined> {
  // Match lists hold uncollapsed orderings only.
  if (q.collapse || !s.lists.applies(q)) return undefined;
  const current = s.cache.knownGeneration() ?? (await s.cache.readGeneration());
  const listed = await s.lists.page(current.gen, q);
  if (!listed) return undefined;
  const body = listedBody(request, s.deps.config.PUBLIC_BASE_URL, q.page, q.perPage, listed);
  return { etag: etagOf(body), lastModified: s.generationDate(current.since), ids: listed.ids, body };
}

/**
 * A page through the feed cache. A miss reads the page, its filter's count and its Last-Modified
 * record in one Redis round trip, then runs one SQL statement (the page with the count, unless the
 * count was cached).
 */
async function cachedPage(s: FeedState, request: PageRequest, key: string, filter: FeedFilter, q: PageQuery): Promise<Entry> {
  const { deps, cache } = s;
  // Built only when the page is not in this process's copies.
  let countKey = '';
  return decodeEntry(
    await cache.getOrCompute(
      key,
      async (peek) => {
        const cachedCount = peek.cached[0];
        const { rows, count } = await pageRows(s, q, cachedCount ? Number(cachedCount.toString()) : null);
        if (!cachedCount) cache.put(countKey, peek.gen, Buffer.from(String(count)));
        const body = Buffer.from(JSON.stringify({ count, ...pageLinks(request, deps.config.PUBLIC_BASE_URL, q.page, q.perPage, count), results: rows }));
        return encodeEntry(
          deps,
          key,
          peek.raw[0],
          body,
          rows.map((r) => r.id),
        );
      },
      // A collapsed page counts groups, not articles: its own count entry.
      () => ({ cached: [(countKey = `count:${q.collapse ? `${q.collapse}:` : ''}${JSON.stringify(filter)}`)], raw: [lmKeyOf(deps, key)] }),
    ),
  );
}

/** A page's items as the API shapes them, and the count (`knownCount` when cached, else read with the page). */
async function pageRows(s: FeedState, q: PageQuery, knownCount: number | null): Promise<{ rows: { id: number }[]; count: number }> {
  const db = s.deps.db;
  if (q.collapse) {
    const page = await collapsedFeedPage(db, q, knownCount === null);
    return { rows: page.rows.map(toCollapsedItem), count: knownCount ?? page.count! };
  }
  if (knownCount !== null) return { rows: (await feedPage(db, q)).map(toArticleItem), count: knownCount };
  const page = await feedPageWithCount(db, q);
  return { rows: page.rows.map(toArticleItem), count: page.count };
}

/** The cache key of GET /news/ with this query string. */
export const pageKeyOf = (querystring: string) => `page:${querystring}`;

/**
 * One page of GET /news/ for a caller: `entry` is the shared page (its validators), `mine` the bytes
 * this caller gets (the shared page, or with `my_vote` added for a caller with an account).
 * `request` is the path and query string the page links and the cache key are made of.
 */
export async function articlePage(s: FeedState, caller: CallerCtx, request: PageRequest, query: ListQuery): Promise<{ entry: Entry; mine: PageBytes }> {
  if (query.per_page !== undefined && query.limit !== undefined) throw badCombination('limit', 'give either per_page or limit, not both');
  if (query.status !== 'approved') requireSignedIn(caller, `status=${query.status}`);
  const key = pageKeyOf(request.querystring);
  // This process's copy of the page (the common case): no filter to build, nothing to await.
  const near = s.cache.localHit(key);
  let entry: Entry | undefined = near && decodeEntry(near);
  let picked = false;
  if (!entry) {
    await requireKnownAssets(s.deps.db, query.asset);
    const filter = feedFilterOf(query, query.status, query.sort_type);
    const q = { ...filter, sort: query.sort_type, page: query.page, perPage: query.per_page ?? query.limit ?? DEFAULT_PER_PAGE, collapse: query.collapse };
    entry = await pickedPage(s, request, q);
    picked = entry !== undefined;
    entry ??= await cachedPage(s, request, key, filter, q);
  }
  // A page kept in the cache (not one picked from a match list, kept nowhere) that anyone may read.
  if (query.status === 'approved' && !picked) s.laneKeys.add(key);
  const user = caller.state.user;
  return { entry, mine: user && entry.ids.length > 0 ? await s.personal.get(user.id, entry) : entry };
}

/** The page a caller gets from GET /news/ with these (parsed) parameters, as the MCP feed tool answers it: the JSON body. */
export async function articlePageBody(def: RouteDef, caller: CallerCtx, querystring: string, query: ListQuery): Promise<string> {
  const { mine } = await articlePage(feedStateOf(def), caller, { path: `${API_PREFIX}/news/`, querystring }, query);
  return mine.body.toString('utf8');
}
