/**
 * The MCP asset tools driven by the official SDK client over Streamable HTTP: registry search, one
 * asset with its mindshare, and asset-filtered news, with the REST routes' schemas and errors.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createTestDeps, type TestDeps } from '../support/context.js';
import { hoursAgo, insertArticle, startTestWorkers } from '../support/intel.js';
import request from '../support/request.js';

let deps: TestDeps;
let http: ReturnType<typeof request>;
let workers: Worker[];
let client: Client;
let btc: number;
let eth: number;

beforeAll(async () => {
  deps = await createTestDeps();
  http = request(createApp(deps));
  workers = startTestWorkers(deps, ['asset-mindshare']);
  btc = await insertArticle(deps.db, { publishedAt: hoursAgo(2), headline: 'Bitcoin tops its record' });
  eth = await insertArticle(deps.db, { publishedAt: hoursAgo(3), headline: 'Ether staking grows' });
  await deps.db
    .insertInto('article_assets')
    .values([
      { article_id: btc, asset_id: 'bitcoin', salience: 0.85, source: 'worker', updated_by: null },
      { article_id: eth, asset_id: 'ethereum', salience: 0.85, source: 'worker', updated_by: null },
    ])
    .execute();
  client = new Client({ name: 'assets-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${await http.base}/mcp`)));
});
afterAll(async () => {
  await client.close();
  await Promise.all(workers.map((w) => w.close()));
  await http.close();
  await deps.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const errorOf = (r: CallToolResult) => JSON.parse((r.content[0] as { text: string }).text).error;

describe('MCP asset tools', () => {
  it('are listed with the REST routes’ input schemas', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName.assets.inputSchema.properties ?? {}).sort()).toEqual(['limit', 'q']);
    expect(Object.keys(byName.asset.inputSchema.properties ?? {})).toEqual(['id']);
    expect(byName.asset_news.inputSchema.required).toContain('asset');
    expect(Object.keys(byName.asset_news.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['asset', 'sort_type', 'per_page', 'token_symbol']));
  });

  it('assets searches the registry; a bad query is the route’s validation error', async () => {
    const r = await call('assets', { q: 'eth', limit: '3' });
    expect(r.isError).toBeFalsy();
    const results = (r.structuredContent as { results: { id: string; symbol: string }[] }).results;
    expect(results[0]).toMatchObject({ id: 'ethereum', symbol: 'ETH' });
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results).toEqual((await http.get('/api/v1/assets/?q=eth&limit=3')).body.results);
    const bad = await call('assets', { q: '' });
    expect(bad.isError).toBe(true);
    expect((bad.content[0] as { text: string }).text).toMatch(/q/);
  });

  it('asset answers as GET /assets/{id}/, with the mindshare once computed; an unknown id is asset_not_found', async () => {
    expect(((await call('asset', { id: 'bitcoin' })).structuredContent as { mindshare: unknown }).mindshare).toBeNull();
    expect((await deps.queue.enqueueAndWait('asset-mindshare', {}, 15_000)).state).toBe('completed');
    const r = await call('asset', { id: 'bitcoin' });
    const page = r.structuredContent as { id: string; deployments: string[]; mindshare: { windows: Record<string, { articles: { count: number; share: number } }> } };
    expect(page.id).toBe('bitcoin');
    expect(page.mindshare.windows['24h'].articles).toEqual({ count: 1, total: 2, share: 0.5 });
    expect(page).toEqual((await http.get('/api/v1/assets/bitcoin/')).body);
    const missing = await call('asset', { id: 'no-such-coin' });
    expect([missing.isError, errorOf(missing).code]).toEqual([true, 'asset_not_found']);
  });

  it('asset_news lists the articles tagged with any of the assets; an unknown asset is unknown_asset', async () => {
    const one = await call('asset_news', { asset: 'bitcoin' });
    expect((one.structuredContent as { results: { id: number }[] }).results.map((a) => a.id)).toEqual([btc]);
    const both = await call('asset_news', { asset: 'bitcoin,ethereum', sort_type: 'new' });
    expect((both.structuredContent as { results: { id: number }[] }).results.map((a) => a.id)).toEqual([btc, eth]);
    const unknown = await call('asset_news', { asset: 'no-such-coin' });
    expect([unknown.isError, errorOf(unknown).code]).toEqual([true, 'unknown_asset']);
    const none = await call('asset_news', {});
    expect(none.isError).toBe(true);
  });
});
