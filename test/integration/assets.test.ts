import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestWorkers } from '../support/workers.js';
import { runCliCaptured } from '../support/cli.js';
import { sessionFor, type Session } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import request from '../support/request.js';
import { startRelay, type RunningRelay } from '../support/relay.js';
import { waitFor } from '../support/wait.js';

let deps: TestDeps;
let relay: RunningRelay;
let http: ReturnType<typeof request>;
let workers: Worker[];
let user: Session;
let editor: Session;
let staff: Session;

beforeAll(async () => {
  deps = await createTestDeps();
  relay = await startRelay(deps);
  http = request(createApp(deps));
  workers = startTestWorkers(deps, ['asset-tag'], { concurrencyCap: 4 });
  user = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'writer' });
  editor = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['editor'], username: 'ed' });
  staff = await sessionFor(deps.db, deps.config.JWT_SECRET, { roles: ['staff'] });
});
afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
  await http.close();
  await deps.close();
});

let n = 0;
async function submit(headline: string, extra: Record<string, unknown> = {}): Promise<number> {
  const r = await http.post('/api/v1/news/post', { url: `https://assets.example/${++n}-${Date.now()}`, headline, ...extra }, user.bearer);
  expect(r.status).toBe(201);
  return r.body.article_id;
}

const record = async (id: number) => (await http.get(`/api/v1/news/${id}/`, editor.bearer)).body;
const assetIds = async (id: number) => ((await record(id)).assets as { id: string }[]).map((a) => a.id);
const until = <T>(fn: () => Promise<T>, ok: (v: T) => boolean, what: string) => waitFor(async () => ((v) => (ok(v) ? v : undefined))(await fn()), { timeout: 10_000, what });

describe('asset tagging by the worker', () => {
  it('tags a new article from its headline, fills empty token fields, and shows assets on the record and the feed', async () => {
    const id = await submit("BlackRock's Bitcoin ETF draws $ETH traders as Coinbase lists stETH");
    const rec = await until(
      () => record(id),
      (r) => r.assets.length === 3,
      'the article to be tagged',
    );
    expect(rec.assets.map((a: { id: string }) => a.id).sort()).toEqual(['bitcoin', 'ethereum', 'lido-staked-ether']);
    expect(rec.assets[0]).toMatchObject({ id: 'bitcoin', symbol: 'BTC', name: 'Bitcoin', primary: false });
    for (const a of rec.assets) expect(a.salience).toBeGreaterThan(0);
    expect(rec.token_symbols).toEqual(['BTC', 'ETH', 'STETH']);
    const feed = await http.get('/api/v1/news/?status=submitted&sort_type=new', editor.bearer);
    expect(feed.body.results.find((a: { id: number }) => a.id === id).assets.map((a: { id: string }) => a.id)).toContain('bitcoin');
  });

  it('keeps token fields an editor set, and tags nothing in a headline about companies or generic words', async () => {
    const id = await submit('Solana treasury firm raises $500M');
    await until(
      () => record(id),
      (r) => r.token_symbols.length === 1,
      'the token fields to be filled',
    );
    expect((await record(id)).token_symbols).toEqual(['SOL']);
    const set = await http.request('PATCH', `/api/v1/news/${id}/`, { token_symbols: ['XYZ'] }, editor.bearer);
    expect(set.status).toBe(200);
    await http.request('PATCH', `/api/v1/news/${id}/`, { headline: 'Solana and Cardano treasury firms raise $500M' }, editor.bearer);
    const after = await until(
      () => record(id),
      (r) => r.assets.length === 2,
      'the re-tag after the headline edit',
    );
    expect(after.token_symbols).toEqual(['XYZ']);
    const none = await submit('Coinbase and Strategy shares slide as stablecoins and altcoins dip');
    const job = await deps.queue.enqueueAndWait('asset-tag', { kind: 'article', id: none }, 10_000);
    expect(job).toMatchObject({ state: 'completed', result: { status: 'tagged', assets: [] } });
    expect(await assetIds(none)).toEqual([]);
  });

  it('ignores a malformed or wrongly checksummed contract address in a headline (never 500), resolves a valid one', async () => {
    const bad = await submit('Whale moves 0xdac17f958d2ee523a2206206994597C13D831ec7 and 0x12345');
    const good = await submit('Whale moves 0xdAC17F958D2ee523a2206206994597C13D831ec7');
    await until(
      () => assetIds(good),
      (ids) => ids.length === 1,
      'the valid address to be resolved',
    );
    expect(await assetIds(good)).toEqual(['tether']);
    const r = await deps.queue.enqueueAndWait('asset-tag', { kind: 'article', id: bad }, 10_000);
    expect(r).toMatchObject({ state: 'completed', result: { assets: [] } });
  });

  it('an unknown article or wire item is a completed no-op; a wire item is tagged from title and summary', async () => {
    expect(await deps.queue.enqueueAndWait('asset-tag', { kind: 'article', id: 99_999_999 }, 10_000)).toMatchObject({ state: 'completed', result: { status: 'not_found' } });
    const item = await deps.db
      .insertInto('wire_items')
      .values({
        normalized_url: 'https://wire.example/x',
        url: 'https://wire.example/x',
        title: 'XRP slides 3%',
        summary: 'Dogecoin follows.',
        source_name: 'Wire',
        source_url: 'https://wire.example/',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const r = await deps.queue.enqueueAndWait('asset-tag', { kind: 'wire_item', id: item.id }, 10_000);
    expect(r).toMatchObject({ state: 'completed', result: { status: 'tagged', assets: ['xrp', 'dogecoin'] } });
    const rows = await deps.db.selectFrom('wire_item_assets').selectAll().where('wire_item_id', '=', item.id).orderBy('salience', 'desc').execute();
    expect(rows.map((x) => [x.asset_id, x.is_primary])).toEqual([
      ['xrp', true],
      ['dogecoin', false],
    ]);
  });
});

describe('editors stay in charge', () => {
  it('an editor removes and adds tags; re-tagging after a headline edit keeps both corrections; the edit history has them', async () => {
    const id = await submit('Bitcoin and Ether rally');
    await until(
      () => assetIds(id),
      (ids) => ids.length === 2,
      'the article to be tagged',
    );
    const removed = await http.delete(`/api/v1/news/${id}/assets/bitcoin/`, undefined, editor.bearer);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ article_id: id, assets: ['ethereum'] });
    const added = await http.post(`/api/v1/news/${id}/assets/`, { asset: 'solana' }, editor.bearer);
    expect(added.body.assets.sort()).toEqual(['ethereum', 'solana']);
    const edit = await http.request('PATCH', `/api/v1/news/${id}/`, { headline: 'Bitcoin, Ether and XRP rally' }, editor.bearer);
    expect(edit.status).toBe(200);
    const after = await until(
      () => assetIds(id),
      (ids) => ids.includes('xrp'),
      'the re-tag after the headline edit',
    );
    expect(after.sort()).toEqual(['ethereum', 'solana', 'xrp']);
    const edits = await http.get(`/api/v1/news/${id}/edits`, editor.bearer);
    const changes = JSON.stringify(edits.body);
    expect(changes).toContain('"assets"');
    expect(changes).toContain('solana');
  });

  it('refuses non-editors, unknown assets and unknown articles', async () => {
    const id = await submit('Litecoin halving nears');
    expect((await http.post(`/api/v1/news/${id}/assets/`, { asset: 'solana' }, user.bearer)).status).toBe(403);
    const unknown = await http.post(`/api/v1/news/${id}/assets/`, { asset: 'no-such-asset' }, editor.bearer);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'asset_not_found']);
    const noArticle = await http.post('/api/v1/news/99999999/assets/', { asset: 'solana' }, editor.bearer);
    expect([noArticle.status, noArticle.body.error.code]).toEqual([404, 'article_not_found']);
    const bad = await http.post(`/api/v1/news/${id}/assets/`, { asset: 'Not An Id' }, editor.bearer);
    expect([bad.status, bad.body.error.code]).toEqual([400, 'validation_failed']);
  });
});

describe('asset API', () => {
  it('filters the feed by asset, any of a comma-separated list; an unknown id is 400 naming it', async () => {
    const id = await submit('Filecoin upgrade ships');
    await until(
      () => assetIds(id),
      (ids) => ids.length === 1,
      'the article to be tagged',
    );
    const list = await http.get('/api/v1/news/?status=submitted&asset=filecoin,monero', editor.bearer);
    expect(list.status).toBe(200);
    expect(list.body.results.map((a: { id: number }) => a.id)).toEqual([id]);
    const unknown = await http.get('/api/v1/news/?asset=filecoin,not-a-coin');
    expect([unknown.status, unknown.body.error.code, unknown.body.error.details.value]).toEqual([400, 'unknown_asset', 'not-a-coin']);
    const malformed = await http.get('/api/v1/news/?asset=Bad_Id');
    expect([malformed.status, malformed.body.error.code]).toEqual([400, 'validation_failed']);
    expect((await http.get('/api/v1/news/feed.rss?asset=not-a-coin')).status).toBe(400);
  });

  it('searches the registry and serves an asset page; an unknown id is 404 asset_not_found', async () => {
    const s = await http.get('/api/v1/assets/?q=usdc');
    expect(s.status).toBe(200);
    expect(s.body.results[0]).toMatchObject({ id: 'usd-coin', symbol: 'USDC' });
    const page = await http.get('/api/v1/assets/usd-coin/');
    expect(page.body).toMatchObject({ id: 'usd-coin', name: 'USD Coin', source: 'curated' });
    expect(page.body.deployments).toContain('eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    const missing = await http.get('/api/v1/assets/not-a-coin/');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'asset_not_found']);
    expect((await http.get('/api/v1/assets/?q=')).status).toBe(400);
  });

  it('staff add assets, aliases and ambiguous words; the worker uses them', async () => {
    const body = { id: 'squidcoin', symbol: 'SQD', name: 'Squidcoin', aliases: ['Squid Money'], deployments: ['eip155:1/erc20:0x00000000000000000000000000000000000000aa'] };
    expect((await http.post('/api/v1/assets/', body, editor.bearer)).status).toBe(403);
    const created = await http.post('/api/v1/assets/', body, staff.bearer);
    expect([created.status, created.body.source]).toEqual([201, 'staff']);
    const again = await http.post('/api/v1/assets/', body, staff.bearer);
    expect([again.status, again.body.error.code]).toEqual([409, 'asset_exists']);
    const patched = await http.request('PATCH', '/api/v1/assets/squidcoin/', { aliases: ['Squid Protocol'] }, staff.bearer);
    expect(patched.body.aliases).toEqual(expect.arrayContaining(['Squid Money', 'Squid Protocol']));
    expect((await http.request('PATCH', '/api/v1/assets/nope/', { ambiguous: true }, staff.bearer)).status).toBe(404);
    const word = await http.post('/api/v1/assets/ambiguous-words/', { word: 'Squidcoin' }, staff.bearer);
    expect(word.body).toEqual({ word: 'squidcoin' });
    const id = await submit('Squid Protocol launches as SQD lists');
    await until(
      () => assetIds(id),
      (ids) => ids.length === 1,
      'the staff asset to be tagged',
    );
    expect(await assetIds(id)).toEqual(['squidcoin']);
    const ambiguous = await submit('Squidcoin is a word now');
    const r = await deps.queue.enqueueAndWait('asset-tag', { kind: 'article', id: ambiguous }, 10_000);
    expect(r).toMatchObject({ state: 'completed', result: { assets: [] } });
  });
});

describe('assets CLI', () => {
  const cli = (...argv: string[]) => runCliCaptured(deps.env.env, argv);

  it('tags JSON lines in input order with the production tagger; staff commands change the registry', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'assets-cli-'));
    try {
      const file = path.join(dir, 'in.jsonl');
      const lines = [
        { id: 7, title: 'Ethereum surges' },
        { id: 'b', title: 'Coinbase earnings beat' },
        { id: null, title: 'Tether adds Bitcoin', summary: 'USDT supply grows' },
      ];
      writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
      const r = await cli('assets', 'tag', `--input=${file}`);
      expect(r.code).toBe(0);
      expect(r.out.split('\n').map((l) => JSON.parse(l))).toEqual([
        { id: 7, assets: ['ethereum'] },
        { id: 'b', assets: [] },
        { id: null, assets: ['bitcoin', 'tether'] },
      ]);
      writeFileSync(file, '{"id": 1}\n');
      const bad = await cli('assets', 'tag', `--input=${file}`);
      expect([bad.code, bad.err]).toEqual([1, 'error: line 1: "title" must be a string']);
      expect((await cli('assets', 'tag')).code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect((await cli('assets', 'add', 'cli-coin', 'CLIC', 'Cli Coin', '--alias=CLI Token')).code).toBe(0);
    expect((await cli('assets', 'add', 'cli-coin', 'CLIC', 'Cli Coin')).code).toBe(1);
    expect((await cli('assets', 'add', 'Bad Id', 'X', 'Y')).code).toBe(2);
    expect((await cli('assets', 'alias', 'cli-coin', 'Clicoin')).code).toBe(0);
    expect((await cli('assets', 'ambiguous', 'cli-coin', 'on')).code).toBe(0);
    expect((await cli('assets', 'word', 'Clic')).code).toBe(0);
    const row = await deps.db.selectFrom('assets').selectAll().where('id', '=', 'cli-coin').executeTakeFirstOrThrow();
    expect([row.source, row.ambiguous, [...row.aliases].sort()]).toEqual(['staff', true, ['CLI Token', 'Clicoin']]);
  });
});
