/**
 * Cold feed pages with a time bound (`since` / `until`), served without running the page query.
 *
 * Every `since` instant is a new query string, so the page cache (feed-cache.ts) never hits for
 * pollers and readers who pass "since my last visit": each such page cost one page + count SQL
 * statement, ~1 ms of PostgreSQL CPU. Here a process keeps, per filter WITHOUT its time bounds
 * (status, sort, token_address, tags, token_symbols, source), the ids of all its matches in feed
 * order with their time in whole milliseconds (feedMatches: one query per filter and generation),
 * and the rendered JSON of feed items by id (feedItemsByIds for the ones it lacks). A page with
 * any since/until is then picked from that list (skip what is out of the time range or not
 * pickable, offset, take perPage) and counted by a binary search of the sorted times: the same
 * items, order and count as the SQL statement, exactly (tests compare the two byte for byte).
 *
 * Exact, not approximate: both caches belong to the feed cache's generation (every change to an
 * article retires them, as it retires cached pages) and live at most the feed cache's TTL, so
 * only `clicks` may lag, by at most that TTL (a page built from them expires with its oldest part).
 * Bounded: a filter with more than MATCH_LIST_MAX matches is not listed (its pages are queried as
 * before); it is remembered as too broad for BROAD_RECHECK_MS whatever the generation, so that a
 * busy feed (a new generation with every vote) does not fetch its MATCH_LIST_MAX + 1 matches again
 * after each change only to learn the same; at most TOTAL_MAX ids over all lists and ITEMS_MAX
 * rendered items are kept, the oldest dropped first.
 */
import type { Db } from '../platform/db.js';
import { feedItemsByIds, feedMatches, type ArticleItemRow, type FeedQuery } from '../articles/index.js';
import { singleFlight } from '../platform/single-flight.js';

const MATCH_LIST_MAX = 50_000;
const TOTAL_MAX = 200_000;
const ITEMS_MAX = 5_000;
/**
 * A list is refreshed ahead of its expiry only when it served at least this many pages: building
 * one costs about ten page queries (tag=defi at 100,000 articles: 20,000 rows, ~130-190 ms against
 * ~13-18 ms for one page + count on a loaded machine), so a rarely used one is left to expire.
 */
const REFRESH_MIN_USES = 20;
const SIGHTINGS_MAX = 10_000;
/**
 * How long a filter found with more than MATCH_LIST_MAX matches is left to the SQL statement before
 * its matches are fetched again (a filter's number of matches changes slowly; pages are exact
 * either way, only their cost differs).
 */
const BROAD_RECHECK_MS = 60_000;
const BROAD_MAX = 1_000;

interface MatchList {
  gen: string;
  expiresAt: number;
  /** Pages served from it. */
  uses: number;
  /** null: more than MATCH_LIST_MAX matches. Otherwise ids in feed order, their times (NaN when unset), pickable flags. */
  ids: Float64Array | null;
  times: Float64Array;
  pick: Uint8Array;
  /** Times of the counted matches, ascending. */
  counted: Float64Array;
}

export interface ListedPage {
  count: number;
  ids: number[];
  /** UTF-8 JSON of each item (JSON.stringify of the mapped row), in page order. */
  items: Buffer[];
  /** When the oldest part of this page expires (ms since epoch). */
  expiresAt: number;
}

/** Index of the first element >= x in an ascending array. */
function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class FeedMatchLists {
  private readonly lists = new Map<string, MatchList>();
  private readonly building = new Map<string, Promise<MatchList>>();
  private listed = 0;
  private readonly items = new Map<number, { gen: string; json: Buffer; expiresAt: number }>();
  private readonly fetching = new Set<number>();
  /** When each filter (without generation) last had a time-bounded request that found no list. */
  private readonly sightings = new Map<string, number>();
  /** Filters (without generation) found too broad to list, and when (see BROAD_RECHECK_MS). */
  private readonly broad = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
    private readonly render: (row: ArticleItemRow) => string,
  ) {}

  /** Whether this query's page can come from a match list: a since/until bound, no rolling window, the cache on. */
  applies(q: FeedQuery): boolean {
    return this.ttlMs > 0 && (q.since !== undefined || q.until !== undefined) && (q.window === undefined || q.window === 'all');
  }

  /**
   * The page of `q` for generation `gen`, or undefined when the page query should run instead: the
   * filter matches too many articles, or this is its first time-bounded request within the TTL (a
   * list is built from the second one on, so a one-off filter costs one page query, not a list).
   */
  async page(gen: string, q: FeedQuery): Promise<ListedPage | undefined> {
    const list = await this.list(gen, q);
    if (!list?.ids) return undefined;
    list.uses++;
    const lo = q.since ? q.since.getTime() : -Infinity;
    const hi = q.until ? q.until.getTime() : Infinity;
    const count = lowerBound(list.counted, hi) - lowerBound(list.counted, lo);
    const skip = (q.page - 1) * q.perPage;
    const ids: number[] = [];
    for (let i = 0, seen = 0; i < list.ids.length && ids.length < q.perPage; i++) {
      const t = list.times[i];
      // NaN (no time) fails both comparisons, as NULL fails them in SQL.
      if (!(t >= lo && t < hi) || !list.pick[i]) continue;
      if (seen++ >= skip) ids.push(list.ids[i]);
    }
    let expiresAt = list.expiresAt;
    const now = Date.now();
    const missing: number[] = [];
    const ageing: number[] = [];
    for (const id of ids) {
      const it = this.items.get(id);
      if (!it || it.gen !== gen || it.expiresAt <= now) missing.push(id);
      else if (it.expiresAt - now < this.ttlMs / 2 && !this.fetching.has(id)) ageing.push(id);
    }
    if (missing.length) await this.fetchItems(gen, missing);
    // Items past half their life are fetched again in the background (the page is served from the
    // current ones, still within the TTL): a steady stream of pages never waits for a refetch.
    if (ageing.length) void this.fetchItems(gen, ageing).catch(() => undefined);
    const page: ListedPage = { count, ids: [], items: [], expiresAt };
    for (const id of ids) {
      const it = this.items.get(id);
      // Absent: no hot-score row (the page query's inner join leaves it out too).
      if (!it || it.gen !== gen) continue;
      page.ids.push(id);
      page.items.push(it.json);
      expiresAt = Math.min(expiresAt, it.expiresAt);
    }
    page.expiresAt = expiresAt;
    return page;
  }

  private async fetchItems(gen: string, ids: number[]): Promise<void> {
    for (const id of ids) this.fetching.add(id);
    try {
      const rows = await feedItemsByIds(this.db, ids);
      const until = Date.now() + this.ttlMs;
      for (const r of rows) {
        this.items.delete(r.id);
        this.items.set(r.id, { gen, json: Buffer.from(this.render(r)), expiresAt: until });
      }
      while (this.items.size > ITEMS_MAX) this.items.delete(this.items.keys().next().value!);
    } finally {
      for (const id of ids) this.fetching.delete(id);
    }
  }

  private async list(gen: string, q: FeedQuery): Promise<MatchList | undefined> {
    const filter = JSON.stringify([q.status, q.sort, q.tokenAddress, q.tags, q.tokenSymbols, q.source, ...(q.assets?.length ? [q.assets] : [])]);
    const key = `${gen} ${filter}`;
    const kept = this.lists.get(key);
    const now = Date.now();
    if (kept && kept.expiresAt > now) {
      // Past half its life and in use: rebuilt in the background while this one (still within the TTL) serves.
      if (kept.expiresAt - now < this.ttlMs / 2 && kept.uses >= REFRESH_MIN_USES) void this.rebuild(key, filter, gen, q).catch(() => undefined);
      return kept;
    }
    if (kept) this.drop(key);
    const building = this.building.get(key);
    if (building) return building;
    const broadAt = this.broad.get(filter);
    if (broadAt !== undefined) {
      if (now - broadAt < BROAD_RECHECK_MS) return undefined;
      this.broad.delete(filter);
    }
    const seen = this.sightings.get(filter);
    this.sightings.delete(filter);
    this.sightings.set(filter, now);
    while (this.sightings.size > SIGHTINGS_MAX) this.sightings.delete(this.sightings.keys().next().value!);
    if (seen === undefined || now - seen > this.ttlMs) return undefined;
    return this.rebuild(key, filter, gen, q);
  }

  /** One build per key at a time; the result replaces the kept list (a too broad filter is remembered as such instead). */
  private rebuild(key: string, filter: string, gen: string, q: FeedQuery): Promise<MatchList> {
    return singleFlight(this.building, key, async () => {
      const l = await this.build(gen, q);
      if (l.ids) this.keep(key, l);
      else {
        this.drop(key);
        this.broad.delete(filter);
        this.broad.set(filter, Date.now());
        if (this.broad.size > BROAD_MAX) this.broad.delete(this.broad.keys().next().value!);
      }
      return l;
    });
  }

  private async build(gen: string, q: FeedQuery): Promise<MatchList> {
    const expiresAt = Date.now() + this.ttlMs;
    const rows = await feedMatches(this.db, q, MATCH_LIST_MAX + 1);
    if (rows.length > MATCH_LIST_MAX) return { gen, expiresAt, uses: 0, ids: null, times: new Float64Array(0), pick: new Uint8Array(0), counted: new Float64Array(0) };
    const n = rows.length;
    const ids = new Float64Array(n);
    const times = new Float64Array(n);
    const pick = new Uint8Array(n);
    const counted: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      ids[i] = r.id;
      times[i] = r.t ?? NaN;
      pick[i] = r.p ? 1 : 0;
      if (r.c && r.t !== null) counted.push(r.t);
    }
    return { gen, expiresAt, uses: 0, ids, times, pick, counted: Float64Array.from(counted).sort() };
  }

  private keep(key: string, l: MatchList): void {
    this.drop(key);
    // Lists of older generations are dead weight: drop them first.
    for (const [k, v] of this.lists) if (v.gen !== l.gen) this.drop(k);
    this.lists.set(key, l);
    this.listed += l.ids?.length ?? 0;
    while (this.listed > TOTAL_MAX) this.drop(this.lists.keys().next().value!);
  }

  private drop(key: string): void {
    const l = this.lists.get(key);
    if (!l) return;
    this.listed -= l.ids?.length ?? 0;
    this.lists.delete(key);
  }
}
