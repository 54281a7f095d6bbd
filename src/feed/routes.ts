/**
 * The article feed (GET /news/) and its syndication formats (GET /news/feed.rss, feed.atom,
 * feed.json): filters, conditional requests, and one shared cached page for every caller. The page
 * itself is built by src/feed/service.ts (the MCP feed tool calls the same use case).
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
import { answerConditional, PRIVATE_REVALIDATE, PUBLIC_REVALIDATE } from '../platform/http/conditional.js';
import { API_PREFIX, errorResponses as errors } from '../platform/http/openapi.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { collapsedFeedPage, feedPage, type FeedSort } from '../articles/index.js';
import { FEED_CACHE_TTL_MS } from './cache.js';
import { toArticleItem } from '../articles/index.js';
import { isSignedIn } from '../articles/index.js';
import { requireKnownAssets } from '../assets/index.js';
import { articlePageSchema, DEFAULT_PER_PAGE, feedFilterParams, MAX_FILTER_VALUES, MAX_PAGE, MAX_PER_PAGE, topWindowParam } from '../articles/index.js';
import { decodeEntry, encodeEntry, lmKeyOf, type Entry, type PageBytes } from './entries.js';
import { collapseParam, toCollapsedItem, type Collapse } from './collapse.js';
import { articlePage, feedFilterOf, feedState, pageKeyOf, rememberFeedState, type FeedOptions, type FeedState, type FilterQuery } from './service.js';

const SYNDICATION_MAX_ITEMS = 50;
const JSON_TYPE = 'application/json; charset=utf-8';
const VARY = 'Authorization, Cookie';

// ---------------------------------------------------------------------------------------------
// Filters

const filterDocs = [
  `Filters (all combine with AND; the values of one repeatable parameter with OR): \`token_address\`, \`tag\` and \`token_symbol\` (repeatable, up to ${MAX_FILTER_VALUES} each), \`source\`, \`since\` / \`until\` (on published_at for approved, created_at for submitted and all; since inclusive, until exclusive), and \`t\` (day|week|month|year|all) with sort_type=top. \`token_symbol\` and \`token_address\` match an article whose own token fields name the value or that is tagged with an asset of that symbol or contract (\`assets\`). A malformed value, \`t\` with another sort_type, or until not after since is 400 validation_failed naming the parameter.`,
];

/** Writes a page (or its 304) with its validators: the handlers' and the lane's one way to answer. */
function answer(ctx: Context, type: string, etag: string, body: Buffer, lastModified: Date, cacheControl: string, vary?: string): void {
  // The full Content-Type, as ctx.type would set it, without its MIME lookup.
  ctx.set('Content-Type', type);
  if (answerConditional(ctx, { etag, lastModified, cacheControl, vary })) return;
  ctx.body = body;
}

// ---------------------------------------------------------------------------------------------
// Routes

/** A page as the caller gets it (`mine`: the shared bytes, or the caller's overlay of them). */
const answerPage = (ctx: Context, entry: Entry, mine: PageBytes) =>
  answer(ctx, JSON_TYPE, mine.etag, mine.body, entry.lastModified, isSignedIn(ctx) ? PRIVATE_REVALIDATE : PUBLIC_REVALIDATE, VARY);

const listArticlesDescription = [
  `Every caller is served the shared cached page of its query string (up to ${FEED_CACHE_TTL_MS} ms old; every change to an article - status, edit, yap, vote, hot-score run - retires it at once, so only \`clicks\` may lag). Callers with an account also get \`my_vote\` on each item (1, -1 or 0), added to the shared page. \`count\` is cached the same way.`,
  '`status`: approved (default, anyone), submitted or all (any signed-in caller; all includes killed, scheduled and retracted). The editor queue is `status=submitted&sort_type=new`.',
  '`sort_type`: hot (default; stored hot score, see GET /news/{id}/ hot_terms), new (newest first: publication time for approved, submission time otherwise), top (net votes, vote_count; `t` limits it to a rolling window). Ties: newest id first.',
  `\`per_page\`: 1 to ${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE}. \`limit\` is the same page size under the name used with \`token_address\`; give one of the two. \`page\`: 1 to ${MAX_PAGE}; a page past the end returns empty results.`,
  ...filterDocs,
  '`collapse=story`: one item per story (its best-ranked matching article in this ordering) with `story_size` and `story_sources`; articles without a story stay items of their own; `count` counts the collapsed items. The page is cached under its own query string, so its ETag is its own.',
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
      collapse: collapseParam,
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
      const { entry, mine } = await articlePage(s, ctx, ctx, query);
      answerPage(ctx, entry, mine);
    },
    lane(ctx) {
      const entry = s.laneKeys.hit(s.cache, pageKeyOf(ctx.querystring));
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
type SyndicationQuery = FilterQuery & { sort_type: FeedSort; limit: number; collapse?: Collapse };

/** The items of a syndication document: the feed's first page, collapsed by story when asked. */
async function syndicationItems(s: FeedState, query: SyndicationQuery) {
  const filter = feedFilterOf(query, 'approved', query.sort_type);
  const q = { ...filter, sort: query.sort_type, page: 1, perPage: query.limit ?? SYNDICATION_MAX_ITEMS };
  if (query.collapse) return (await collapsedFeedPage(s.deps.db, q, false)).rows.map(toCollapsedItem);
  return (await feedPage(s.deps.db, q)).map(toArticleItem);
}

async function syndicationEntry(s: FeedState, ctx: Context, f: Format, query: SyndicationQuery): Promise<Entry> {
  const { deps, homeUrl } = s;
  await requireKnownAssets(deps.db, query.asset);
  // The combination rules are checked before the cache: a bad query is 400 even when a page is cached.
  feedFilterOf(query, 'approved', query.sort_type);
  const key = `${f.ext}:${ctx.querystring}`;
  return decodeEntry(
    await s.cache.getOrCompute(
      key,
      async (peek) => {
        const items = await syndicationItems(s, query);
        const meta: SyndicationMeta = {
          title: 'Squid News',
          description: 'Crowdsourced crypto and DeFi news, curated by the community',
          homeUrl,
          selfUrl: `${s.base}${API_PREFIX}/news/feed.${f.ext}${ctx.querystring ? `?${ctx.querystring}` : ''}`,
          recordUrl: (id) => `${homeUrl}${id}/`,
          schemeBase: `${homeUrl}#`,
        };
        return encodeEntry(
          deps,
          key,
          peek.raw[0],
          Buffer.from(f.render(items, meta)),
          items.map((r) => r.id),
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
      '`collapse=story`: one item per story, as on GET /news/ (JSON Feed items carry `_squid.story_size` and `_squid.story_sources`).',
      'The same for every caller (credentials are not needed and change nothing): `Cache-Control: public, max-age=0, must-revalidate`, a strong `ETag` and `Last-Modified`; conditional requests get 304.',
    ].join('\n\n'),
    tags: ['articles'],
    query: z.strictObject({
      sort_type: z.enum(['hot', 'new', 'top']).default('hot'),
      limit: queryInt({ min: 1, max: SYNDICATION_MAX_ITEMS, default: SYNDICATION_MAX_ITEMS }),
      ...feedFilterParams,
      t: topWindowParam,
      collapse: collapseParam,
    }),
    responses: {
      200: { description: f.name, schema: f.ext === 'json' ? z.record(z.string(), z.unknown()) : z.string(), contentType: f.type.split(';')[0] },
      304: { description: 'not modified; no body' },
      ...errors({ 400: 'validation_failed naming the parameter' }),
    },
    async handler(ctx: Context, { query }: { query: SyndicationQuery }) {
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

/** The feed's routes on one FeedState (src/feed/service.ts); `opts` vary the feed cache's timings (tests and benches). */
export function feedRoutes(deps: AppDeps, opts: FeedOptions = {}): RouteDef[] {
  const s = feedState(deps, opts);
  return [rememberFeedState(listArticlesRoute(s), s), ...formats.map((f) => syndicationRoute(s, f))];
}
