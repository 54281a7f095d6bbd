/**
 * Assets on lifecycle events: `assets` on an article event's payload and the asset filter of
 * GET /api/v1/events/ and of webhook endpoints (unknown ids are 400 unknown_asset naming the value);
 * token filters (feed, stories, stream and webhook attrs) match an article tagged with the asset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { matchesAttributes, normalizeAttrs } from '../../src/platform/events/filter.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let user: Session;
let editor: Session;

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  user = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'writer' });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'ed' });
});
afterAll(async () => {
  await http.close();
  await deps.close();
});

let n = 0;
async function approvedWith(assets: string[]): Promise<number> {
  const r = await http.post('/api/v1/news/post', { url: `https://events.example/${++n}`, headline: `Market wrap ${n}` }, user.bearer);
  expect(r.status).toBe(201);
  const id = r.body.article_id as number;
  for (const asset of assets) expect((await http.post(`/api/v1/news/${id}/assets/`, { asset }, editor.bearer)).status).toBe(200);
  expect((await http.post(`/api/v1/news/${id}/approve`, undefined, editor.bearer)).status).toBe(200);
  return id;
}

describe('assets on events', () => {
  it('an article event carries the tags as assets; GET /events/?asset= keeps the events of any listed asset', async () => {
    const btc = await approvedWith(['bitcoin']);
    const both = await approvedWith(['ethereum', 'bitcoin']);
    const none = await approvedWith([]);
    const all = (await http.get('/api/v1/events/?types=news.approved')).body.results as { id: number; assets?: unknown[] }[];
    const ev = all.find((e) => e.id === btc)!;
    expect(ev.assets).toEqual([{ id: 'bitcoin', symbol: 'BTC', name: 'Bitcoin', salience: 0.5, primary: false }]);
    expect(all.find((e) => e.id === none)).not.toHaveProperty('assets');
    const ids = async (q: string) => ((await http.get(`/api/v1/events/?types=news.approved&asset=${q}`)).body.results as { id: number }[]).map((e) => e.id);
    expect(await ids('bitcoin')).toEqual([btc, both]);
    expect(await ids('ethereum')).toEqual([both]);
    expect(await ids('ethereum,solana')).toEqual([both]);
    expect(await ids('solana')).toEqual([]);
  });

  it('GET /events/ refuses an unknown asset id (unknown_asset naming it) and a malformed one (validation_failed)', async () => {
    const unknown = await http.get('/api/v1/events/?asset=bitcoin,no-such-coin');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_asset', details: { parameter: 'asset', value: 'no-such-coin' } });
    const bad = await http.get('/api/v1/events/?asset=Not%20An%20Id');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
  });

  it('webhook endpoints take an asset filter, show it, and refuse an unknown id', async () => {
    const refused = await http.post('/api/v1/webhooks/', { url: 'https://hooks.example/a', filters: { assets: ['bitcoin', 'no-such-coin'] } }, user.bearer);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'unknown_asset', details: { value: 'no-such-coin' } });
    const made = await http.post('/api/v1/webhooks/', { url: 'https://hooks.example/b', filters: { assets: ['bitcoin', 'bitcoin'], tags: ['markets'] } }, user.bearer);
    expect(made.status).toBe(201);
    expect(made.body.filters).toEqual({ tags: ['markets'], token_addresses: null, token_symbols: null, assets: ['bitcoin'] });
    const patched = await http.request('PATCH', `/api/v1/webhooks/${made.body.id}/`, { filters: { assets: ['nope-nope'] } }, user.bearer);
    expect(patched.status).toBe(400);
    expect(patched.body.error.code).toBe('unknown_asset');
    const plain = await http.post('/api/v1/webhooks/', { url: 'https://hooks.example/c' }, user.bearer);
    expect(plain.body.filters).toEqual({ tags: null, token_addresses: null, token_symbols: null });
  });

  it('token_symbol and token_address match an article tagged with the asset, whatever its own token fields name', async () => {
    const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
    const r = await http.post('/api/v1/news/post', { url: `https://events.example/${++n}`, headline: `Market wrap ${n}` }, user.bearer);
    const id = r.body.article_id as number;
    // Fields a person set (not the worker's fill): the tags leave them as they are.
    await deps.db
      .updateTable('articles')
      .set({ token_symbols: ['DOGE'], token_addresses: [] })
      .where('id', '=', id)
      .execute();
    expect((await http.post(`/api/v1/news/${id}/assets/`, { asset: 'usd-coin' }, editor.bearer)).status).toBe(200);
    expect((await http.post(`/api/v1/news/${id}/approve`, undefined, editor.bearer)).status).toBe(200);
    const article = await deps.db.selectFrom('articles').select(['token_symbols', 'token_addresses']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(article).toEqual({ token_symbols: ['DOGE'], token_addresses: [] });

    const feed = async (q: string) => ((await http.get(`/api/v1/news/?sort_type=new&${q}`)).body.results as { id: number }[]).map((a) => a.id);
    expect(await feed('token_symbol=usdc')).toContain(id);
    expect(await feed('token_symbol=DOGE')).toContain(id);
    expect(await feed(`token_address=${USDC}`)).toContain(id);
    expect(await feed('token_symbol=SOL')).not.toContain(id);
    expect(await feed('token_address=0x0000000000000000000000000000000000000001')).not.toContain(id);

    // The approval's event: its attrs (what stream and webhook token filters match) name the tag's symbol and contract too.
    const row = await deps.db.selectFrom('event_log').select('attrs').where('article_id', '=', id).where('type', '=', 'news.approved').executeTakeFirstOrThrow();
    const attrs = normalizeAttrs(row.attrs);
    const only = (kind: 'token_symbols' | 'token_addresses', v: string) => ({ token_symbols: null, token_addresses: null, tags: null, [kind]: new Set([v]) });
    expect(matchesAttributes(only('token_symbols', 'USDC'), attrs)).toBe(true);
    expect(matchesAttributes(only('token_symbols', 'DOGE'), attrs)).toBe(true);
    expect(matchesAttributes(only('token_addresses', USDC), attrs)).toBe(true);
    expect(matchesAttributes(only('token_symbols', 'SOL'), attrs)).toBe(false);
  });
});
