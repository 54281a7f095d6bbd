/**
 * The article feed (GET /news/) and its syndication formats (GET /news/feed.rss, feed.atom,
 * feed.json): filters, conditional requests, and one shared cached page for every caller.
 *
 * Every caller reads the same cached page of a query string (src/feed/cache.ts), whatever
 * its credentials: the page holds nothing personal. The relay retires the cache on every event that
 * changes an article (status, edit, yap, vote, hot-score run), so a cached page is at most
 * FEED_CACHE_TTL_MS old only in its `clicks` counters. What is personal is added on top:
 *  - a caller with an account (session or a key linked to one) gets `my_vote` on every item, from
 *    one primary-key lookup of its votes on the page's ids, kept in this process per (user, page
 *    ETag): any change of the caller's vote on an item changes that item's vote_count, hence the page
 *    and its ETag, so the kept overlay can never be stale;
 *  - authenticated responses are `Cache-Control: private`, anonymous ones `public`.
 * Pages carry a strong ETag (SHA-1 of the bytes) and a Last-Modified that stays put while the
 * ETag does (kept in Redis for 10 minutes; a time-bounded page picked from a match list uses when
 * this process first saw the feed cache's generation instead), and answer If-None-Match /
 * If-Modified-Since with 304.
 * Pages this process holds are also served by the memory lane (src/platform/http/lane.ts) through each
 * route's `lane`: the same answer without the middleware chain, for callers without credentials and
 * callers whose credentials and overlay are already kept in this process.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { renderAtom, renderJsonFeed, renderRss, type SyndicationMeta } from './rules/syndication.js';
import { DomainError } from '../platform/errors/index.js';
import { answerConditional, etagOf, PRIVATE_REVALIDATE, PUBLIC_REVALIDATE } from '../platform/http/conditional.js';
import { API_PREFIX, errorResponses as errors } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { feedPage, feedPageWithCount, type FeedFilter, type FeedSort, type FeedStatus } from '../articles/index.js';
import { FEED_CACHE_TTL_MS, FEED_GEN_CHECK_MS, FeedCache } from './cache.js';
import { FeedMatchLists, type ListedPage } from './match-lists.js';
import { toArticleItem } from '../articles/index.js';
import { myVotesOn } from '../articles/index.js';
import { isSignedIn, pageLinks, requireSignedIn } from '../articles/index.js';
import { requireKnownAssets } from '../assets/index.js';
import { articlePageSchema, DEFAULT_PER_PAGE, feedFilterParams, MAX_FILTER_VALUES, MAX_PAGE, MAX_PER_PAGE, topWindowParam } from '../articles/index.js';
import { feedLastModifiedKey } from '../platform/redis-keys.js';
import { singleFlight } from '../platform/single-flight.js';

const SYNDICATION_MAX_ITEMS = 50;
const JSON_TYPE = 'application/json; charset=utf-8';
const VARY = 'Authorization, Cookie';
/**
 * How long the Last-Modified of a query string's bytes is remembered (the time they were first
 * served). Long enough to span pollers' intervals; short enough that random query strings cannot
 * pile up keys in Redis (one ~150-byte key per distinct query string for 10 minutes).
 */
const LAST_MODIFIED_TTL_S = 600;
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

// ---------------------------------------------------------------------------------------------
// Cached entries: "<etag> <last-modified ms> <comma-separated item ids>\n<body>"

interface Entry {
  etag: string;
  lastModified: Date;
  ids: number[];
  body: Buffer;
}

/** Entries already decoded, by the cached bytes (the feed cache hands out the same Buffer while it keeps a page). */
const decoded = new WeakMap<Buffer, Entry>();

function decodeEntry(raw: Buffer): Entry {
  const known = decoded.get(raw);
  if (known) return known;
  const nl = raw.indexOf(10);
  const [etag, lm, ids] = raw.toString('latin1', 0, nl).split(' ');
  const entry = { etag, lastModified: new Date(Number(lm)), ids: ids ? ids.split(',').map(Number) : [], body: raw.subarray(nl + 1) };
  decoded.set(raw, entry);
  return entry;
}

/** A page picked from its filter's match list (src/feed/match-lists.ts): the bytes JSON.stringify({ count, next, previous, results }) would write. */
function listedBody(ctx: Context, baseUrl: string, page: number, perPage: number, listed: ListedPage): Buffer {
  const links = pageLinks(ctx, baseUrl, page, perPage, listed.count);
  const parts: Buffer[] = [Buffer.from(`{"count":${listed.count},"next":${JSON.stringify(links.next)},"previous":${JSON.stringify(links.previous)},"results":[`)];
  listed.items.forEach((item, i) => parts.push(...(i ? [COMMA, item] : [item])));
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

const lmKeyOf = (deps: AppDeps, key: string) => feedLastModifiedKey(deps.config.QUEUE_PREFIX, key);

/**
 * The entry for freshly rendered bytes. Last-Modified is the time these exact bytes were first
 * rendered (remembered in Redis under the cache key; `prev` is that record, read in the cache's
 * own round trip): re-rendering unchanged content keeps it.
 */
function encodeEntry(deps: AppDeps, key: string, prev: Buffer | null, body: Buffer, ids: number[]): Buffer {
  const etag = etagOf(body);
  const p = prev?.toString('latin1');
  let lm = Date.now();
  if (p && p.startsWith(`${etag} `)) lm = Number(p.slice(etag.length + 1));
  else {
    // Best effort, not awaited: a lost write only makes the next render's Last-Modified newer.
    deps.redis
      .set(lmKeyOf(deps, key), `${etag} ${lm}`, 'EX', LAST_MODIFIED_TTL_S)
      .catch((err: unknown) => deps.log.warn({ err: (err as Error).message }, 'feed: Last-Modified not stored'));
  }
  return Buffer.concat([Buffer.from(`${etag} ${lm} ${ids.join(',')}\n`, 'latin1'), body]);
}

// ---------------------------------------------------------------------------------------------
// The personal overlay: the shared page with the caller's my_vote on each item.

const OVERLAY_MAX_ENTRIES = 2000;
/** A caller's overlay of one page version. */
const keyOf = (userId: number, page: Entry) => `${userId}|${page.etag}`;
const OVERLAY_MAX_BYTES = 16 * 1024 * 1024;

class PersonalPages {
  private readonly kept = new Map<string, { etag: string; body: Buffer }>();
  private readonly inflight = new Map<string, Promise<{ etag: string; body: Buffer }>>();
  private bytes = 0;

  constructor(private readonly deps: AppDeps) {}

  /** The caller's page as kept in this process (no lookup); undefined when get() would build it. */
  keptFor(userId: number, page: Entry): { etag: string; body: Buffer } | undefined {
    return this.kept.get(keyOf(userId, page));
  }

  async get(userId: number, page: Entry): Promise<{ etag: string; body: Buffer }> {
    const key = keyOf(userId, page);
    const hit = this.kept.get(key);
    if (hit) return hit;
    return singleFlight(this.inflight, key, async () => {
      const v = await this.build(userId, page);
      this.keep(key, v);
      return v;
    });
  }

  private async build(userId: number, page: Entry): Promise<{ etag: string; body: Buffer }> {
    const votes = await myVotesOn(this.deps.db, userId, page.ids);
    const doc = JSON.parse(page.body.toString('utf8')) as { results: { id: number; my_vote?: number }[] };
    for (const item of doc.results) item.my_vote = votes.get(item.id) ?? 0;
    const body = Buffer.from(JSON.stringify(doc));
    return { etag: etagOf(body), body };
  }

  private keep(key: string, v: { etag: string; body: Buffer }): void {
    this.kept.set(key, v);
    this.bytes += v.body.length;
    while (this.kept.size > OVERLAY_MAX_ENTRIES || this.bytes > OVERLAY_MAX_BYTES) {
      const oldest = this.kept.keys().next().value!;
      this.bytes -= this.kept.get(oldest)!.body.length;
      this.kept.delete(oldest);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Filters

interface FilterQuery {
  asset?: string[];
  token_address?: string;
  tag?: string[];
  token_symbol?: string[];
  source?: string;
  since?: Date;
  until?: Date;
  t?: 'day' | 'week' | 'month' | 'year' | 'all';
}

function badCombination(param: string, message: string): DomainError {
  return new DomainError('validation_failed', `invalid request: query.${param}`, { fields: [{ path: `query.${param}`, code: 'conflict', message }] });
}

/** The validated filter of a feed request (combination rules that a single parameter's schema cannot state). */
function feedFilterOf(query: FilterQuery, status: FeedStatus, sort: FeedSort): FeedFilter {
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

const filterDocs = [
  `Filters (all combine with AND; the values of one repeatable parameter with OR): \`token_address\`, \`tag\` and \`token_symbol\` (repeatable, up to ${MAX_FILTER_VALUES} each), \`source\`, \`since\` / \`until\` (on published_at for approved, created_at for submitted and all; since inclusive, until exclusive), and \`t\` (day|week|month|year|all) with sort_type=top. A malformed value, \`t\` with another sort_type, or until not after since is 400 validation_failed naming the parameter.`,
];

// ---------------------------------------------------------------------------------------------
// The memory lane (src/platform/http/lane.ts)

/** Cache keys remembered as servable without credentials (bounded: the oldest go first). */
const LANE_KEYS_MAX = 10_000;

/**
 * The cache keys of query strings this process has served without needing credentials (valid, and
 * for GET /news/ status=approved): what the memory lane may answer from the feed cache's local copies.
 */
class LaneKeys {
  private readonly keys = new Set<string>();

  add(key: string): void {
    if (this.keys.has(key)) return;
    if (this.keys.size >= LANE_KEYS_MAX) this.keys.delete(this.keys.values().next().value!);
    this.keys.add(key);
  }

  /** The local copy of `key`'s page when the lane may serve it. */
  hit(cache: FeedCache, key: string): Entry | undefined {
    const near = this.keys.has(key) ? cache.localHit(key) : undefined;
    return near && decodeEntry(near);
  }
}

/** Writes a page (or its 304) with its validators: the handlers' and the lane's one way to answer. */
function answer(ctx: Context, type: string, etag: string, body: Buffer, lastModified: Date, cacheControl: string, vary?: string): void {
  // The full Content-Type, as ctx.type would set it, without its MIME lookup.
  ctx.set('Content-Type', type);
  if (answerConditional(ctx, { etag, lastModified, cacheControl, vary })) return;
  ctx.body = body;
}

// ---------------------------------------------------------------------------------------------
// Routes

/** What the feed's routes share: the feed cache, match lists, personal overlays and lane keys of this process. */
interface FeedState {
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

function feedState(deps: AppDeps, opts: { feedCacheTtlMs?: number; feedGenCheckMs?: number }): FeedState {
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

/** A page as the caller gets it (`mine`: the shared bytes, or the caller's overlay of them). */
const answerPage = (ctx: Context, entry: Entry, mine: { etag: string; body: Buffer }) =>
  answer(ctx, JSON_TYPE, mine.etag, mine.body, entry.lastModified, isSignedIn(ctx) ? PRIVATE_REVALIDATE : PUBLIC_REVALIDATE, VARY);

type PageQuery = FeedFilter & { sort: FeedSort; page: number; perPage: number };

/**
 * A time-bounded page (a new `since` is a new query string, which no cache holds): picked from the
 * filter's match list, nothing stored, no Redis round trip while this process knows the current
 * generation. Last-Modified is when this process first saw the generation: every change to an
 * article starts a new one, so these bytes cannot be older. Undefined when no match list applies.
 */
async function pickedPage(s: FeedState, ctx: Context, q: PageQuery): Promise<Entry | undefined> {
  if (!s.lists.applies(q)) return undefined;
  const current = s.cache.knownGeneration() ?? (await s.cache.readGeneration());
  const listed = await s.lists.page(current.gen, q);
  if (!listed) return undefined;
  const body = listedBody(ctx, s.deps.config.PUBLIC_BASE_URL, q.page, q.perPage, listed);
  return { etag: etagOf(body), lastModified: s.generationDate(current.since), ids: listed.ids, body };
}

/**
 * A page through the feed cache. A miss reads the page, its filter's count and its Last-Modified
 * record in one Redis round trip, then runs one SQL statement (the page with the count, unless the
 * count was cached).
 */
async function cachedPage(s: FeedState, ctx: Context, key: string, filter: FeedFilter, q: PageQuery): Promise<Entry> {
  const { deps, cache } = s;
  // Built only when the page is not in this process's copies.
  let countKey = '';
  return decodeEntry(
    await cache.getOrCompute(
      key,
      async (peek) => {
        const cachedCount = peek.cached[0];
        let rows;
        let count: number;
        if (cachedCount) {
          rows = await feedPage(deps.db, q);
          count = Number(cachedCount.toString());
        } else {
          ({ rows, count } = await feedPageWithCount(deps.db, q));
          cache.put(countKey, peek.gen, Buffer.from(String(count)));
        }
        const body = Buffer.from(JSON.stringify({ count, ...pageLinks(ctx, deps.config.PUBLIC_BASE_URL, q.page, q.perPage, count), results: rows.map(toArticleItem) }));
        return encodeEntry(
          deps,
          key,
          peek.raw[0],
          body,
          rows.map((r) => r.id),
        );
      },
      () => ({ cached: [(countKey = `count:${JSON.stringify(filter)}`)], raw: [lmKeyOf(deps, key)] }),
    ),
  );
}

const listArticlesDescription = [
  `Every caller is served the shared cached page of its query string (up to ${FEED_CACHE_TTL_MS} ms old; every change to an article - status, edit, yap, vote, hot-score run - retires it at once, so only \`clicks\` may lag). Callers with an account also get \`my_vote\` on each item (1, -1 or 0), added to the shared page. \`count\` is cached the same way.`,
  '`status`: approved (default, anyone), submitted or all (any signed-in caller; all includes killed, scheduled and retracted). The editor queue is `status=submitted&sort_type=new`.',
  '`sort_type`: hot (default; stored hot score, see GET /news/{id}/ hot_terms), new (newest first: publication time for approved, submission time otherwise), top (net votes, vote_count; `t` limits it to a rolling window). Ties: newest id first.',
  `\`per_page\`: 1 to ${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE}. \`limit\` is the same page size under the name used with \`token_address\`; give one of the two. \`page\`: 1 to ${MAX_PAGE}; a page past the end returns empty results.`,
  ...filterDocs,
  'Items: `vote_count` is net votes (up minus down), `votes` the number of votes cast; `top_tldr` the best-scored yap tagged tldr (score >= 0) or null.',
  "Conditional requests: the response has a strong `ETag` and a `Last-Modified` (when these bytes were first served; for a page with `since` / `until` picked from its filter's match list, when the serving process first saw the feed's current state, which every change to an article renews, so never before the bytes existed); `If-None-Match` / `If-Modified-Since` that still match get 304 with no body. `Cache-Control: public, max-age=0, must-revalidate` for anonymous callers, `private, ...` for authenticated ones (`Vary: Authorization, Cookie`).",
  'Unknown parameters, repeated non-repeatable parameters and out-of-range values are 400 validation_failed naming the parameter.',
].join('\n\n');

function listArticlesRoute(s: FeedState): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/news/',
    operationId: 'listArticles',
    summary: 'The article feed (paged, filtered)',
    description: listArticlesDescription,
    tags: ['articles'],
    query: z.strictObject({
      status: z.enum(['approved', 'submitted', 'all']).default('approved'),
      sort_type: z.enum(['hot', 'new', 'top']).default('hot'),
      page: queryInt({ min: 1, max: MAX_PAGE, default: 1 }),
      per_page: queryInt({ min: 1, max: MAX_PER_PAGE }),
      limit: queryInt({ min: 1, max: MAX_PER_PAGE }),
      ...feedFilterParams,
      t: topWindowParam,
    }),
    responses: {
      200: {
        description: 'page',
        schema: articlePageSchema,
        headers: { ETag: { description: 'Strong validator of the body' }, 'Last-Modified': { description: 'When these bytes were first served' } },
      },
      304: { description: 'not modified (If-None-Match / If-Modified-Since matched); no body' },
      ...errors({ 400: 'validation_failed naming the parameter', 401: 'status=submitted or all without credentials' }),
    },
    async handler(ctx, { query }) {
      if (query.per_page !== undefined && query.limit !== undefined) throw badCombination('limit', 'give either per_page or limit, not both');
      if (query.status !== 'approved') requireSignedIn(ctx, `status=${query.status}`);
      const key = `page:${ctx.querystring}`;
      // This process's copy of the page (the common case): no filter to build, nothing to await.
      const near = s.cache.localHit(key);
      let entry: Entry | undefined = near && decodeEntry(near);
      let picked = false;
      if (!entry) {
        await requireKnownAssets(s.deps.db, query.asset);
        const filter = feedFilterOf(query, query.status, query.sort_type);
        const q = { ...filter, sort: query.sort_type, page: query.page, perPage: query.per_page ?? query.limit ?? DEFAULT_PER_PAGE };
        entry = await pickedPage(s, ctx, q);
        picked = entry !== undefined;
        entry ??= await cachedPage(s, ctx, key, filter, q);
      }
      // A page kept in the cache (not one picked from a match list, kept nowhere) that anyone may read.
      if (query.status === 'approved' && !picked) s.laneKeys.add(key);
      const user = ctx.state.user;
      answerPage(ctx, entry, user && entry.ids.length > 0 ? await s.personal.get(user.id, entry) : entry);
    },
    lane(ctx) {
      const entry = s.laneKeys.hit(s.cache, `page:${ctx.querystring}`);
      if (!entry) return undefined;
      const user = ctx.state.user;
      const mine = user && entry.ids.length > 0 ? s.personal.keptFor(user.id, entry) : entry;
      return mine && (() => answerPage(ctx, entry, mine));
    },
  });
}

const formats = [
  { ext: 'rss', operationId: 'feedRss', type: 'application/rss+xml; charset=utf-8', name: 'RSS 2.0', render: renderRss },
  { ext: 'atom', operationId: 'feedAtom', type: 'application/atom+xml; charset=utf-8', name: 'Atom 1.0 (RFC 4287)', render: renderAtom },
  { ext: 'json', operationId: 'feedJson', type: 'application/feed+json; charset=utf-8', name: 'JSON Feed 1.1', render: renderJsonFeed },
] as const;

type Format = (typeof formats)[number];

/** The syndication document of a query string, through the feed cache. */
async function syndicationEntry(s: FeedState, ctx: Context, f: Format, query: FilterQuery & { sort_type: FeedSort; limit: number }): Promise<Entry> {
  const { deps, homeUrl } = s;
  await requireKnownAssets(deps.db, query.asset);
  const filter = feedFilterOf(query, 'approved', query.sort_type);
  const key = `${f.ext}:${ctx.querystring}`;
  return decodeEntry(
    await s.cache.getOrCompute(
      key,
      async (peek) => {
        const rows = await feedPage(deps.db, { ...filter, sort: query.sort_type, page: 1, perPage: query.limit ?? SYNDICATION_MAX_ITEMS });
        const meta: SyndicationMeta = {
          title: 'Squid News',
          description: 'Crowdsourced crypto and DeFi news, curated by the community',
          homeUrl,
          selfUrl: `${s.base}${API_PREFIX}/news/feed.${f.ext}${ctx.querystring ? `?${ctx.querystring}` : ''}`,
          recordUrl: (id) => `${homeUrl}${id}/`,
          schemeBase: `${homeUrl}#`,
        };
        const items = rows.map((r) => ({ ...toArticleItem(r) }));
        return encodeEntry(
          deps,
          key,
          peek.raw[0],
          Buffer.from(f.render(items, meta)),
          rows.map((r) => r.id),
        );
      },
      { raw: [lmKeyOf(deps, key)] },
    ),
  );
}

function syndicationRoute(s: FeedState, f: Format): RouteDef {
  return defineRoute({
    method: 'get',
    path: `/news/feed.${f.ext}`,
    operationId: f.operationId,
    summary: `The approved feed as ${f.name}`,
    description: [
      `The approved feed (the first page of GET /news/ with the same \`sort_type\` and filters), up to ${SYNDICATION_MAX_ITEMS} items (\`limit\`, default ${SYNDICATION_MAX_ITEMS}). Each item: headline, article URL, publication time, source, tags and token symbols as categories, and the URL of the article record (GET /news/{id}/).`,
      ...filterDocs,
      'The same for every caller (credentials are not needed and change nothing): `Cache-Control: public, max-age=0, must-revalidate`, a strong `ETag` and `Last-Modified`; conditional requests get 304.',
    ].join('\n\n'),
    tags: ['articles'],
    query: z.strictObject({
      sort_type: z.enum(['hot', 'new', 'top']).default('hot'),
      limit: queryInt({ min: 1, max: SYNDICATION_MAX_ITEMS, default: SYNDICATION_MAX_ITEMS }),
      ...feedFilterParams,
      t: topWindowParam,
    }),
    responses: {
      200: { description: f.name, schema: f.ext === 'json' ? z.record(z.string(), z.unknown()) : z.string(), contentType: f.type.split(';')[0] },
      304: { description: 'not modified; no body' },
      ...errors({ 400: 'validation_failed naming the parameter' }),
    },
    async handler(ctx: Context, { query }: { query: FilterQuery & { sort_type: FeedSort; limit: number } }) {
      const entry = await syndicationEntry(s, ctx, f, query);
      s.laneKeys.add(`${f.ext}:${ctx.querystring}`);
      answer(ctx, f.type, entry.etag, entry.body, entry.lastModified, PUBLIC_REVALIDATE);
    },
    lane(ctx: Context) {
      const entry = s.laneKeys.hit(s.cache, `${f.ext}:${ctx.querystring}`);
      return entry && (() => answer(ctx, f.type, entry.etag, entry.body, entry.lastModified, PUBLIC_REVALIDATE));
    },
  });
}

/** feedCacheTtlMs / feedGenCheckMs: the feed cache's FEED_CACHE_TTL_MS and FEED_GEN_CHECK_MS (tests and benches vary them). */
export function feedRoutes(deps: AppDeps, opts: { feedCacheTtlMs?: number; feedGenCheckMs?: number } = {}): RouteDef[] {
  const s = feedState(deps, opts);
  return [listArticlesRoute(s), ...formats.map((f) => syndicationRoute(s, f))];
}
