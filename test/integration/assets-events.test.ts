/**
 * Assets on lifecycle events: `assets` on an article event's payload and the asset filter of
 * GET /api/v1/events/ and of webhook endpoints (unknown ids are 400 unknown_asset naming the value).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
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
});
