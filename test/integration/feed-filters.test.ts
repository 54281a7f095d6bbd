/**
 * Feed filters and their combination rules, the syndication formats (parsed by
 * independent parsers: rss-parser, feedparser, and a JSON Schema of JSON Feed 1.1 with ajv),
 * conditional requests, and the shared page with the caller's my_vote on top.
 */
import { Readable } from 'node:stream';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import FeedParser from 'feedparser';
import Parser from 'rss-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import { slugify } from '../../src/platform/url/slug.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { useTestApp } from '../support/app.js';

let relay: RunningRelay;
const BASE = 'https://news.example.com';
const app = useTestApp({ alice: { username: 'alice' }, bob: { username: 'bob' } }, { PUBLIC_BASE_URL: BASE });
const UNI = '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984';
const ids: Record<string, number> = {};
const NASTY = 'Q3 & "Q4" <b>earnings</b> of Tom\'s DAO 🚀🦑 déjà vu';

interface Seed {
  status?: ArticleStatus;
  hoursAgo: number;
  tags?: string[];
  symbols?: string[];
  tokens?: string[];
  source?: string;
  votes?: number;
  hot?: number;
  headline?: string;
}

async function insertArticle(key: string, v: Seed) {
  const at = new Date(Date.now() - v.hoursAgo * 3600_000);
  const status = v.status ?? 'approved';
  const row = await app.deps.db
    .insertInto('articles')
    .values({
      slug: slugify(key),
      headline: v.headline ?? `Story ${key}`,
      url: `https://${v.source ?? 'site.example'}/${key}?a=1&b=2`,
      normalized_url: `https://${v.source ?? 'site.example'}/${key}`,
      source: v.source ?? 'site.example',
      status,
      submitted_by: app.alice.userId,
      created_at: at,
      published_at: status === 'approved' ? at : null,
      token_addresses: v.tokens ?? [],
      token_symbols: v.symbols ?? [],
      tags: v.tags ?? [],
      vote_count: v.votes ?? 0,
      votes_cast: Math.abs(v.votes ?? 0),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await app.deps.db
    .updateTable('article_hot_scores')
    .set({ hot_score: v.hot ?? 0 })
    .where('article_id', '=', row.id)
    .execute();
  ids[key] = row.id;
}

beforeAll(async () => {
  relay = await startRelay(app.deps);
  await insertArticle('defi-uni', { hoursAgo: 2, tags: ['defi'], symbols: ['UNI'], tokens: [UNI], source: 'coindesk.com', votes: 5, hot: 40 });
  await insertArticle('sec-aave', { hoursAgo: 30, tags: ['security'], symbols: ['AAVE'], source: 'theblock.co', votes: 9, hot: 30 });
  await insertArticle('defi-old', { hoursAgo: 24 * 10, tags: ['defi', 'markets'], symbols: ['uni'], source: 'coindesk.com', votes: 20, hot: 1 });
  await insertArticle('year-old', { hoursAgo: 24 * 200, tags: ['markets'], source: 'decrypt.co', votes: 50, hot: 0 });
  await insertArticle('nasty', { hoursAgo: 1, tags: ['markets'], symbols: ['PEPE'], source: 'site.example', votes: 1, hot: 50, headline: NASTY });
  await insertArticle('queued', { status: 'submitted', hoursAgo: 3, tags: ['defi'], source: 'coindesk.com' });
});

afterAll(async () => {
  await relay.close();
});

const keys = (r: { body: { results: { id: number }[] } }) => r.body.results.map((a) => Object.entries(ids).find(([, id]) => id === a.id)![0]);

describe('GET /news/ filters', () => {
  it('tag: repeatable, any of; case-insensitive slug', async () => {
    expect(keys(await app.http.get('/api/v1/news/?tag=defi&sort_type=new'))).toEqual(['defi-uni', 'defi-old']);
    expect(keys(await app.http.get('/api/v1/news/?tag=security&tag=DEFI&sort_type=new'))).toEqual(['defi-uni', 'sec-aave', 'defi-old']);
    const r = await app.http.get('/api/v1/news/?tag=markets');
    expect(r.body.count).toBe(3);
  });

  it('token_symbol: repeatable, case-insensitive both ways', async () => {
    expect(keys(await app.http.get('/api/v1/news/?token_symbol=uni&sort_type=new'))).toEqual(['defi-uni', 'defi-old']);
    expect(keys(await app.http.get('/api/v1/news/?token_symbol=Aave&token_symbol=pepe&sort_type=new'))).toEqual(['nasty', 'sec-aave']);
  });

  it('source: domain or name, case-insensitive; a URL or www. prefix is reduced to the domain', async () => {
    for (const s of ['coindesk.com', 'CoinDesk.com', 'www.coindesk.com', 'https://www.coindesk.com/markets/x']) {
      expect(keys(await app.http.get(`/api/v1/news/?source=${encodeURIComponent(s)}&sort_type=new`))).toEqual(['defi-uni', 'defi-old']);
    }
    expect((await app.http.get('/api/v1/news/?source=nowhere.example')).body).toMatchObject({ count: 0, results: [] });
  });

  it('since / until on published_at (until exclusive); on created_at for status=submitted', async () => {
    const since = new Date(Date.now() - 48 * 3600_000).toISOString();
    expect(keys(await app.http.get(`/api/v1/news/?since=${since}&sort_type=new`))).toEqual(['nasty', 'defi-uni', 'sec-aave']);
    const until = new Date(Date.now() - 2 * 3600_000 - 60_000).toISOString();
    expect(keys(await app.http.get(`/api/v1/news/?since=${since}&until=${until}&sort_type=new`))).toEqual(['sec-aave']);
    // A date alone is midnight UTC; an offset is honoured.
    const day = new Date(Date.now() - 24 * 400 * 3600_000).toISOString().slice(0, 10);
    expect((await app.http.get(`/api/v1/news/?since=${day}`)).body.count).toBe(5);
    expect((await app.http.get('/api/v1/news/?until=2000-01-01T02:00:00%2B02:00')).body.count).toBe(0);
    const q = await app.http.get(`/api/v1/news/?status=submitted&since=${new Date(Date.now() - 4 * 3600_000).toISOString()}`, app.alice.bearer);
    expect(keys(q)).toEqual(['queued']);
  });

  it('t windows sort_type=top (default all keeps the old ranking)', async () => {
    expect(keys(await app.http.get('/api/v1/news/?sort_type=top'))).toEqual(['year-old', 'defi-old', 'sec-aave', 'defi-uni', 'nasty']);
    expect(keys(await app.http.get('/api/v1/news/?sort_type=top&t=all'))).toEqual(['year-old', 'defi-old', 'sec-aave', 'defi-uni', 'nasty']);
    expect(keys(await app.http.get('/api/v1/news/?sort_type=top&t=day'))).toEqual(['defi-uni', 'nasty']);
    expect(keys(await app.http.get('/api/v1/news/?sort_type=top&t=week'))).toEqual(['sec-aave', 'defi-uni', 'nasty']);
    expect(keys(await app.http.get('/api/v1/news/?sort_type=top&t=month'))).toEqual(['defi-old', 'sec-aave', 'defi-uni', 'nasty']);
    expect(keys(await app.http.get('/api/v1/news/?sort_type=top&t=year'))).toEqual(['year-old', 'defi-old', 'sec-aave', 'defi-uni', 'nasty']);
  });

  it('filters combine with each other, with token_address, sort, paging and count', async () => {
    const r = await app.http.get('/api/v1/news/?tag=defi&tag=markets&source=coindesk.com&token_symbol=UNI&sort_type=top&t=month&per_page=1');
    expect(keys(r)).toEqual(['defi-old']);
    expect(r.body.count).toBe(2);
    expect(r.body.next).toBe(`${BASE}/api/v1/news/?tag=defi&tag=markets&source=coindesk.com&token_symbol=UNI&sort_type=top&t=month&per_page=1&page=2`);
    expect(keys(await app.http.get(`/api/v1/news/?token_address=${UNI.toUpperCase().replace('0X', '0x')}&tag=defi`))).toEqual(['defi-uni']);
    expect(keys(await app.http.get(`/api/v1/news/?token_address=${UNI}&tag=security`))).toEqual([]);
    // hot order with an article filter joins articles; still by hot score.
    expect(keys(await app.http.get('/api/v1/news/?tag=markets'))).toEqual(['nasty', 'defi-old', 'year-old']);
  });

  it('each filter can be answered from its index (the query text matches the index expressions)', async () => {
    const { feedCount } = await import('../../src/articles/queries.js');
    const { Kysely, PostgresDialect } = await import('kysely');
    const pg = (await import('pg')).default;
    const pool = new pg.Pool({ connectionString: app.deps.config.DATABASE_URL, max: 1 });
    const captured: { sql: string; parameters: readonly unknown[] }[] = [];
    const logged = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: (e) => void captured.push({ sql: e.query.sql, parameters: e.query.parameters }) });
    const plan = async (f: Parameters<typeof feedCount>[1]) => {
      captured.length = 0;
      await feedCount(logged as never, f);
      const c = await pool.connect();
      try {
        // The table is tiny here: forbid the sequential scan to see which index the condition can use.
        await c.query('SET enable_seqscan = off');
        return (await c.query(`EXPLAIN ${captured[0].sql}`, captured[0].parameters as unknown[])).rows.map((r) => r['QUERY PLAN']).join('\n');
      } finally {
        await c.query('RESET enable_seqscan');
        c.release();
      }
    };
    try {
      // status=all: the filter is the only condition an index could serve.
      expect(await plan({ status: 'all', tags: ['defi'] })).toContain('articles_tags_idx');
      // A token symbol: the field's GIN index, ORed with the articles tagged with an asset of that symbol (their ids from article_assets' asset index).
      const symbols = await plan({ status: 'all', tokenSymbols: ['UNI'] });
      expect(symbols).toContain('articles_token_symbols_upper_idx');
      expect(symbols).toContain('article_assets_asset_idx');
      expect(await plan({ status: 'all', tokenAddress: '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984' })).toContain('asset_deployments_address_idx');
      expect(await plan({ status: 'all', source: 'coindesk.com' })).toContain('articles_feed_source_idx');
      expect(await plan({ status: 'all', since: new Date() })).toContain('articles_created_idx');
    } finally {
      await logged.destroy();
    }
  });

  it('unknown or malformed values are 400 validation_failed naming the parameter', async () => {
    const cases: [string, string][] = [
      ['tag=Not%20a%20slug', 'query.tag'],
      ['tag=', 'query.tag'],
      [`${Array.from({ length: 11 }, (_, i) => `tag=t${i}`).join('&')}`, 'query.tag'],
      ['token_symbol=UNI%3B--', 'query.token_symbol'],
      ['token_symbol=' + 'X'.repeat(33), 'query.token_symbol'],
      ['source=', 'query.source'],
      ['source=a&source=b', 'query.source'],
      ['since=yesterday', 'query.since'],
      ['since=2026-02-30', 'query.since'],
      ['since=2026-11-01T10:00:00', 'query.since'],
      ['until=2026-11-01T25:00:00Z', 'query.until'],
      ['since=2026-11-02&until=2026-11-01', 'query.until'],
      ['since=2026-11-01&until=2026-11-01', 'query.until'],
      ['sort_type=top&t=decade', 'query.t'],
      ['t=day', 'query.t'],
      ['sort_type=new&t=week', 'query.t'],
      ['tags=defi', 'query.tags'],
    ];
    for (const [qs, param] of cases) {
      const r = await app.http.get(`/api/v1/news/?${qs}`);
      expect(r.status, qs).toBe(400);
      expect(r.body.error.code, qs).toBe('validation_failed');
      expect(
        r.body.error.details.fields.map((f: { path: string }) => f.path.split('.').slice(0, 2).join('.')),
        qs,
      ).toContain(param);
    }
  });
});

describe('syndication feeds', () => {
  it('RSS 2.0 parses with rss-parser: items with headline, URL, time, source, categories and the record link; text round-trips', async () => {
    const r = await app.http.get('/api/v1/news/feed.rss?tag=markets');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    const feed = await new Parser().parseString(r.text);
    expect(feed.items.map((i) => i.title)).toEqual([NASTY, 'Story defi-old', 'Story year-old']);
    const first = feed.items[0];
    expect(first.link).toBe('https://site.example/nasty?a=1&b=2');
    expect(first.guid).toBe(`${BASE}/api/v1/news/${ids.nasty}/`);
    expect(new Date(first.isoDate!).getTime()).toBeGreaterThan(Date.now() - 2 * 3600_000);
    expect((first.categories as unknown as (string | { _: string })[]).map((c) => (typeof c === 'string' ? c : c._))).toEqual(['markets', 'PEPE']);
    expect(r.text).toContain('<source url="https://site.example/">site.example</source>');
    // The record link works.
    expect((await app.http.get(new URL(first.guid!).pathname)).body.headline).toBe(NASTY);
  });

  it('Atom 1.0 parses with feedparser (RFC 4287 and RSS parser independent of ours)', async () => {
    const r = await app.http.get('/api/v1/news/feed.atom?sort_type=new&limit=2');
    expect(r.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    const items = await new Promise<FeedParser.Item[]>((resolve, reject) => {
      const out: FeedParser.Item[] = [];
      const p = new FeedParser({ feedurl: `${BASE}/api/v1/news/feed.atom` });
      p.on('error', reject);
      p.on('readable', () => {
        let i: FeedParser.Item | null;
        while ((i = p.read())) out.push(i);
      });
      p.on('end', () => resolve(out));
      Readable.from([r.text]).pipe(p);
    });
    expect(items).toHaveLength(2);
    expect(items[0].meta['#type']).toBe('atom');
    // feedparser strips markup from titles it shows; the raw Atom text element round-trips exactly.
    expect((items[0] as unknown as Record<string, { '#': string }>)['atom:title']['#']).toBe(NASTY);
    expect(items[0].link).toBe('https://site.example/nasty?a=1&b=2');
    expect(items[0].guid).toBe(`${BASE}/api/v1/news/${ids.nasty}/`);
    expect(items[0].author).toBe('site.example');
    expect(items[0].categories).toEqual(expect.arrayContaining(['markets', 'PEPE']));
    expect(items[0].pubdate).toBeInstanceOf(Date);
    expect(items[1].title).toBe('Story defi-uni');
  });

  it('JSON Feed 1.1 validates against a JSON Schema of the 1.1 spec and carries the extension fields', async () => {
    const r = await app.http.get('/api/v1/news/feed.json?token_symbol=uni&sort_type=new');
    expect(r.headers.get('content-type')).toBe('application/feed+json; charset=utf-8');
    const ajv = new Ajv({ strict: false, allErrors: true });
    // ajv-formats is CommonJS: its plugin is the default export's default.
    const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (a: Ajv) => void;
    addFormats(ajv);
    const valid = ajv.validate(JSON_FEED_1_1_SCHEMA, JSON.parse(r.text));
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const feed = JSON.parse(r.text);
    expect(feed.items.map((i: { title: string }) => i.title)).toEqual(['Story defi-uni', 'Story defi-old']);
    expect(feed.items[0]).toMatchObject({
      id: `${BASE}/api/v1/news/${ids['defi-uni']}/`,
      url: 'https://coindesk.com/defi-uni?a=1&b=2',
      authors: [{ name: 'coindesk.com', url: 'https://coindesk.com/' }],
      _squid: { article_id: ids['defi-uni'], source: 'coindesk.com', tags: ['defi'], token_symbols: ['UNI'], token_addresses: [UNI] },
    });
    const nasty = JSON.parse((await app.http.get('/api/v1/news/feed.json?tag=markets&limit=1')).text);
    expect(nasty.items[0].title).toBe(NASTY);
  });

  it('at most 50 items; only approved; the same filters and their 400s', async () => {
    const r = await app.http.get('/api/v1/news/feed.json?tag=defi');
    expect(JSON.parse(r.text).items.map((i: { title: string }) => i.title)).not.toContain('Story queued');
    for (const [qs, param] of [
      ['limit=51', 'query.limit'],
      ['status=submitted', 'query.status'],
      ['since=never', 'query.since'],
      ['sort_type=hot&t=day', 'query.t'],
    ]) {
      for (const ext of ['rss', 'atom', 'json']) {
        const bad = await app.http.get(`/api/v1/news/feed.${ext}?${qs}`);
        expect(bad.status, `${ext} ${qs}`).toBe(400);
        expect(
          bad.body.error.details.fields.map((f: { path: string }) => f.path),
          `${ext} ${qs}`,
        ).toContain(param);
      }
    }
  });
});

describe('conditional requests', () => {
  it('feed pages: ETag and Last-Modified; If-None-Match / If-Modified-Since -> 304 without a body; public for anonymous', async () => {
    const path = '/api/v1/news/?tag=security';
    const r = await app.http.get(path);
    const etag = r.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(r.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
    expect(r.headers.get('vary')).toMatch(/Authorization/);
    const lm = r.headers.get('last-modified')!;
    const n = await app.http.get(path, { 'if-none-match': etag });
    expect(n.status).toBe(304);
    expect(n.text).toBe('');
    expect(n.headers.get('etag')).toBe(etag);
    expect((await app.http.get(path, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await app.http.get(path, { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await app.http.get(path, { 'if-modified-since': lm })).status).toBe(304);
    expect((await app.http.get(path, { 'if-modified-since': new Date(Date.parse(lm) - 5000).toUTCString() })).status).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect((await app.http.get(path, { 'if-none-match': '"other"', 'if-modified-since': lm })).status).toBe(200);
  });

  it('a vote or a yap on an article of the page changes its ETag', async () => {
    const path = '/api/v1/news/?tag=security';
    const etag0 = (await app.http.get(path)).headers.get('etag')!;
    const v = await app.http.post(`/api/v1/news/${ids['sec-aave']}/vote`, { weight: 1 }, app.bob.bearer);
    expect(v.status).toBe(200);
    await relayed(app.deps);
    const after = await app.http.get(path, { 'if-none-match': etag0 });
    expect(after.status).toBe(200);
    expect(after.body.results[0].vote_count).toBe(10);
    const etag1 = after.headers.get('etag')!;
    const y = await app.http.post(`/api/v1/news/${ids['sec-aave']}/post_yap`, { text: 'TL;DR: a bug, patched', tags: ['tldr'] }, app.alice.bearer);
    expect(y.status).toBe(201);
    await relayed(app.deps);
    const afterYap = await app.http.get(path, { 'if-none-match': etag1 });
    expect(afterYap.status).toBe(200);
    expect(afterYap.body.results[0].yap_count).toBe(1);
    // Nothing changed: the same ETag and Last-Modified even after the cache entry expired.
    const lm = afterYap.headers.get('last-modified');
    await expect.poll(async () => (await app.http.get(path, { 'if-none-match': afterYap.headers.get('etag')! })).status, { timeout: 5000, interval: 250 }).toBe(304);
    expect((await app.http.get(path)).headers.get('last-modified')).toBe(lm);
  });

  it("an editor's edit or a status change of an article on the page changes its ETag", async () => {
    const editor = await app.session({ roles: ['editor'], username: 'etag-editor' });
    // Edit: the headline of an item on the page.
    const path = '/api/v1/news/?tag=markets&sort_type=new';
    const before = await app.http.get(path);
    expect(keys(before)).toEqual(['nasty', 'defi-old', 'year-old']);
    const e = await app.http.request('PATCH', `/api/v1/news/${ids['year-old']}/`, { headline: 'A year-old story, corrected' }, editor.bearer);
    expect(e.status).toBe(200);
    await relayed(app.deps);
    const edited = await app.http.get(path, { 'if-none-match': before.headers.get('etag')! });
    expect(edited.status).toBe(200);
    expect(edited.body.results[2].headline).toBe('A year-old story, corrected');
    expect(edited.headers.get('etag')).not.toBe(before.headers.get('etag'));
    // Status, item staying on the page: the editor queue with status=all shows the killed submission.
    const allPath = '/api/v1/news/?status=all&source=coindesk.com&sort_type=new';
    const queue = await app.http.get(allPath, editor.bearer);
    expect(queue.body.results.find((a: { id: number }) => a.id === ids.queued)).toMatchObject({ status: 'submitted' });
    const k = await app.http.post(`/api/v1/news/${ids.queued}/kill`, { reason: 'off_topic' }, editor.bearer);
    expect(k.status).toBe(200);
    await relayed(app.deps);
    const killed = await app.http.get(allPath, { ...editor.bearer, 'if-none-match': queue.headers.get('etag')! });
    expect(killed.status).toBe(200);
    expect(killed.body.results.find((a: { id: number }) => a.id === ids.queued)).toMatchObject({ status: 'killed' });
    // Status, item leaving the page: a retraction takes it out of the approved feed.
    const r = await app.http.post(`/api/v1/news/${ids['year-old']}/retract`, { reason: 'off_topic' }, editor.bearer);
    expect(r.status).toBe(200);
    await relayed(app.deps);
    const retracted = await app.http.get(path, { 'if-none-match': edited.headers.get('etag')! });
    expect(retracted.status).toBe(200);
    expect(keys(retracted)).toEqual(['nasty', 'defi-old']);
  });

  it('signed-in callers: the shared page plus their my_vote, private, with their own ETag', async () => {
    const path = '/api/v1/news/?tag=security';
    const anon = await app.http.get(path);
    const b = await app.http.get(path, app.bob.bearer);
    expect(b.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    expect(b.body.results[0]).toMatchObject({ id: ids['sec-aave'], my_vote: 1, vote_count: anon.body.results[0].vote_count });
    const a = await app.http.get(path, app.alice.bearer);
    expect(a.body.results[0].my_vote).toBe(0);
    expect(a.headers.get('etag')).not.toBe(b.headers.get('etag'));
    expect(anon.body.results[0].my_vote).toBeUndefined();
    expect((await app.http.get(path, { ...app.bob.bearer, 'if-none-match': b.headers.get('etag')! })).status).toBe(304);
    // Bob changes his vote: his page (and everyone's) changes.
    await app.http.post(`/api/v1/news/${ids['sec-aave']}/vote`, { weight: -1 }, app.bob.bearer);
    await relayed(app.deps);
    const b2 = await app.http.get(path, { ...app.bob.bearer, 'if-none-match': b.headers.get('etag')! });
    expect(b2.status).toBe(200);
    expect(b2.body.results[0]).toMatchObject({ my_vote: -1, vote_count: 8 });
  });

  it('syndication feeds and article records answer conditional requests too', async () => {
    for (const ext of ['rss', 'atom', 'json']) {
      const r = await app.http.get(`/api/v1/news/feed.${ext}?tag=defi`);
      expect(r.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
      expect(r.headers.get('last-modified')).toBeTruthy();
      expect((await app.http.get(`/api/v1/news/feed.${ext}?tag=defi`, { 'if-none-match': r.headers.get('etag')! })).status).toBe(304);
      expect((await app.http.get(`/api/v1/news/feed.${ext}?tag=defi`, { 'if-modified-since': r.headers.get('last-modified')! })).status).toBe(304);
    }
    const rec = await app.http.get(`/api/v1/news/${ids['defi-uni']}/`);
    expect(rec.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
    const etag = rec.headers.get('etag')!;
    expect((await app.http.get(`/api/v1/news/${ids['defi-uni']}/`, { 'if-none-match': etag })).status).toBe(304);
    const mine = await app.http.get(`/api/v1/news/${ids['defi-uni']}/`, app.alice.bearer);
    expect(mine.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    await app.http.post(`/api/v1/news/${ids['defi-uni']}/vote`, { weight: 1 }, app.bob.bearer);
    expect((await app.http.get(`/api/v1/news/${ids['defi-uni']}/`, { 'if-none-match': etag })).status).toBe(200);
  });
});

/** JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/) as a JSON Schema: required members, types and URL/date formats. */
const JSON_FEED_1_1_SCHEMA = {
  type: 'object',
  required: ['version', 'title', 'items'],
  properties: {
    version: { const: 'https://jsonfeed.org/version/1.1' },
    title: { type: 'string' },
    home_page_url: { type: 'string', format: 'uri' },
    feed_url: { type: 'string', format: 'uri' },
    description: { type: 'string' },
    user_comment: { type: 'string' },
    next_url: { type: 'string', format: 'uri' },
    icon: { type: 'string', format: 'uri' },
    favicon: { type: 'string', format: 'uri' },
    authors: { type: 'array', items: { $ref: '#/$defs/author' } },
    language: { type: 'string' },
    expired: { type: 'boolean' },
    hubs: { type: 'array', items: { type: 'object', required: ['type', 'url'], properties: { type: { type: 'string' }, url: { type: 'string', format: 'uri' } } } },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id'],
        anyOf: [{ required: ['content_html'] }, { required: ['content_text'] }],
        properties: {
          id: { type: 'string' },
          url: { type: 'string', format: 'uri' },
          external_url: { type: 'string', format: 'uri' },
          title: { type: 'string' },
          content_html: { type: 'string' },
          content_text: { type: 'string' },
          summary: { type: 'string' },
          image: { type: 'string', format: 'uri' },
          banner_image: { type: 'string', format: 'uri' },
          date_published: { type: 'string', format: 'date-time' },
          date_modified: { type: 'string', format: 'date-time' },
          authors: { type: 'array', items: { $ref: '#/$defs/author' } },
          tags: { type: 'array', items: { type: 'string' } },
          language: { type: 'string' },
          attachments: { type: 'array' },
        },
        patternProperties: { '^_': { type: 'object' } },
        additionalProperties: false,
      },
    },
  },
  patternProperties: { '^_': { type: 'object' } },
  additionalProperties: false,
  $defs: {
    author: {
      type: 'object',
      minProperties: 1,
      properties: { name: { type: 'string' }, url: { type: 'string', format: 'uri' }, avatar: { type: 'string', format: 'uri' } },
      patternProperties: { '^_': { type: 'object' } },
      additionalProperties: false,
    },
  },
} as const;
