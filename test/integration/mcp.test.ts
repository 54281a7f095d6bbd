/**
 * The MCP server at /mcp driven by the official SDK client over Streamable HTTP: every tool, its
 * input schema taken from the REST route, auth through the Authorization header, REST quotas and
 * rate limits, and the paid intel_report tool over the x402 MCP transport against a local
 * facilitator (and with a builder API key).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402Client } from '@x402/core/client';
import type { PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { Worker } from 'bullmq';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignStoryItem } from '../../src/stories/index.js';
import { createApp } from '../../src/app.js';
import { reportSchema } from '../../src/intel/schemas.js';
import { SERVICE_VERSION } from '../../src/platform/version.js';
import { startFacilitator, type FacilitatorServer } from '../support/facilitator-server.js';
import { apiKeyOfTier, hoursAgo, insertArticle, siblingDeps, startTestWorkers } from '../support/intel.js';
import request from '../support/request.js';
import { useTestApp } from '../support/app.js';
import { x402TestEnv } from '../support/x402.js';

const PAY_TO = getAddress('0x7000000000000000000000000000000000000007');

let fac: FacilitatorServer;
let workers: Worker[];
let base: string;
let articleId: number;
const clients: Client[] = [];
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  fac = await startFacilitator({ network: 'eip155:84532' });
});
const app = useTestApp({ user: {} }, () => ({ ...x402TestEnv(PAY_TO, fac.url), JOB_WAIT_MS: '5000' }));
beforeAll(async () => {
  workers = startTestWorkers(app.deps, ['intel-report', 'intel-trending', 'provenance-check', 'page-title']);
  base = await app.http.base;
  articleId = await insertArticle(app.deps.db, {
    tags: ['defi'],
    clicks: 40,
    publishedAt: hoursAgo(2),
    source: 'coindesk.com',
    headline: 'Uniswap governance approves fee switch',
  });
  await insertArticle(app.deps.db, { tags: ['defi', 'l2'], clicks: 10, publishedAt: hoursAgo(20), source: 'theblock.co', headline: 'Arbitrum sequencer outage resolved' });
  for (const text of ['first take on the fee switch', 'second take, more detail here']) {
    const r = await app.http.post(`/api/v1/news/${articleId}/post_yap`, { text }, app.user.bearer);
    expect(r.status).toBe(201);
  }
});

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await Promise.all(workers.map((w) => w.close()));
  for (const c of closers) await c.close();
  await fac.close();
});

async function connect(headers: Record<string, string> = {}, url = `${base}/mcp`): Promise<Client> {
  const client = new Client({ name: 'squid-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = async (c: Client, name: string, args: Record<string, unknown> = {}, _meta?: Record<string, unknown>) =>
  (await c.callTool({ name, arguments: args, ...(_meta ? { _meta } : {}) })) as CallToolResult;

const textOf = (r: CallToolResult) => (r.content[0] as { type: 'text'; text: string }).text;

describe('tools and their schemas', () => {
  it("lists the tools; input schemas are the REST routes' own", async () => {
    const c = await connect();
    expect(c.getServerVersion()).toEqual({ name: 'squid-news', version: SERVICE_VERSION });
    const { tools } = await c.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([
      'article',
      'asset',
      'asset_news',
      'assets',
      'feed',
      'intel_report',
      'intel_trending',
      'provenance_check',
      'search',
      'stories',
      'story',
      'submit_article',
    ]);
    expect(Object.keys(byName.feed.inputSchema.properties ?? {}).sort()).toEqual([
      'collapse',
      'limit',
      'page',
      'per_page',
      'since',
      'sort_type',
      'source',
      'status',
      't',
      'tag',
      'token_address',
      'token_symbol',
      'until',
    ]);
    expect((byName.feed.inputSchema.properties as any).sort_type.enum).toEqual(['hot', 'new', 'top']);
    expect(Object.keys(byName.intel_report.inputSchema.properties ?? {}).sort()).toEqual(['hours', 'top_n', 'topics']);
    expect(Object.keys(byName.submit_article.inputSchema.properties ?? {}).sort()).toEqual(['headline', 'url']);
    expect(Object.keys(byName.article.inputSchema.properties ?? {}).sort()).toEqual(['id', 'page', 'per_page', 'sort']);
  });
});

describe('the endpoint', () => {
  it('is POST-only (stateless): GET is 405 with Allow: POST', async () => {
    const r = await app.http.get('/mcp', { accept: 'text/event-stream' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
  });
});

describe('free tools', () => {
  it("feed with filters; a bad filter is refused with the route's own message", async () => {
    const c = await connect();
    const r = await call(c, 'feed', { sort_type: 'new', per_page: '1' });
    expect(r.isError).toBeFalsy();
    const page = r.structuredContent as any;
    expect(page.results).toHaveLength(1);
    expect(page.count).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(textOf(r))).toEqual(page);
    const bad = await call(c, 'feed', { per_page: '0' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/per_page/);
    const unknown = await call(c, 'feed', { colour: 'red' });
    expect(unknown.isError).toBe(true);
  });

  it('article with its top yaps; an unknown id is the REST 404', async () => {
    const c = await connect();
    const r = await call(c, 'article', { id: String(articleId), per_page: '5' });
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as any;
    expect(out.article).toMatchObject({ id: articleId, headline: 'Uniswap governance approves fee switch' });
    expect(out.yaps.count).toBe(2);
    expect(out.yaps.results.map((y: any) => y.text).sort()).toEqual(['first take on the fee switch', 'second take, more detail here']);
    const missing = await call(c, 'article', { id: '99999999' });
    expect(missing.isError).toBe(true);
    expect((missing.structuredContent as any).error.code).toBe('article_not_found');
  });

  it('search, provenance check and trending', async () => {
    const c = await connect();
    const s = await call(c, 'search', { q: 'uniswap fee switch' });
    expect(s.isError).toBeFalsy();
    expect((s.structuredContent as any).results.map((x: any) => x.news_id)).toContain(articleId);
    const p = await call(c, 'provenance_check', { text: 'Uniswap governance approves fee switch' });
    expect(p.isError).toBeFalsy();
    expect((p.structuredContent as any).verdict).toBe('known');
    const t = await call(c, 'intel_trending', { hours: '48' });
    expect(t.isError).toBeFalsy();
    expect(JSON.stringify(t.structuredContent)).toMatch(/defi/);
  });
});

describe('submit_article', () => {
  it('needs an authenticated caller; with a bearer token it submits', async () => {
    const anon = await connect();
    const denied = await call(anon, 'submit_article', { url: 'https://example.org/story-1', headline: 'A story' });
    expect(denied.isError).toBe(true);
    expect((denied.structuredContent as any).error.code).toBe('auth_required');
    const signedIn = await connect(app.user.bearer);
    const ok = await call(signedIn, 'submit_article', { url: 'https://example.org/story-1', headline: 'A story' });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({ success: true, status: 'submitted', headline: 'A story' });
    const row = await app.deps.db
      .selectFrom('articles')
      .select('submitted_by')
      .where('id', '=', (ok.structuredContent as any).article_id)
      .executeTakeFirstOrThrow();
    expect(row.submitted_by).toBe(app.user.userId);
  });
});

describe('limits as on REST', () => {
  it('per-IP route limit: the 31st search in a minute is rate_limited', async () => {
    await app.deps.redis.del(...(await app.deps.redis.keys(`${app.deps.config.QUEUE_PREFIX}:rl:provenance-search*`)), 'none');
    const c = await connect();
    let last: CallToolResult | undefined;
    for (let i = 0; i < 31; i++) last = await call(c, 'search', { q: 'arbitrum' });
    expect(last!.isError).toBe(true);
    expect((last!.structuredContent as any).error.code).toBe('rate_limited');
  });

  it('the daily quota counts tool calls like REST requests', async () => {
    const small = siblingDeps(app.deps, { ANON_DAILY_QUOTA: 2 } as never);
    closers.push(small);
    const h = request(createApp(small));
    closers.push(h);
    const c = await connect({ 'x-forwarded-for': '203.0.113.9' }, `${await h.base}/mcp`);
    await app.deps.redis.del(...(await app.deps.redis.keys(`${app.deps.config.QUEUE_PREFIX}:quota:ip:*`)), 'none');
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await call(c, 'feed', {}));
    expect(results.slice(0, 2).every((r) => !r.isError)).toBe(true);
    expect(results[2].isError).toBe(true);
    expect((results[2].structuredContent as any).error.code).toBe('daily_quota_exceeded');
  });
});

describe('intel_report (paid)', () => {
  it('without payment: isError with the x402 PaymentRequired (structuredContent and content[0].text) and how to pay', async () => {
    const c = await connect();
    const r = await call(c, 'intel_report', { hours: '24' });
    expect(r.isError).toBe(true);
    const pr = r.structuredContent as unknown as PaymentRequired;
    expect(pr.x402Version).toBe(2);
    expect(pr.resource.url).toBe('http://127.0.0.1:8000/mcp');
    expect(pr.accepts[0]).toMatchObject({ scheme: 'exact', network: 'eip155:84532', amount: '250000', payTo: PAY_TO });
    expect(JSON.parse(textOf(r))).toEqual(pr);
    expect((pr.extensions as any).bazaar.info.input).toMatchObject({ type: 'mcp', tool: 'intel_report' });
    expect((r.content[1] as any).text).toMatch(/x402\/payment/);
  });

  it('a builder API key on the MCP request gets the report', async () => {
    const c = await connect(await apiKeyOfTier(app.deps.db, 'builder'));
    const r = await call(c, 'intel_report', {});
    expect(r.isError).toBeFalsy();
    expect(() => reportSchema.parse(r.structuredContent)).not.toThrow();
    expect(r._meta?.['x402/payment-response']).toBeUndefined();
  });

  it('pays over the x402 MCP transport: _meta["x402/payment"] in, settled _meta["x402/payment-response"] out', async () => {
    const c = await connect();
    const account = privateKeyToAccount(generatePrivateKey());
    const payer = new x402Client().register('eip155:*', new ExactEvmScheme(account));
    const first = await call(c, 'intel_report', { hours: '24' });
    const payload = await payer.createPaymentPayload(first.structuredContent as unknown as PaymentRequired);
    const before = fac.settles.length;
    const paid = await call(c, 'intel_report', { hours: '24' }, { 'x402/payment': payload });
    expect(paid.isError, (paid.content[1] as any)?.text).toBeFalsy();
    expect(() => reportSchema.parse(paid.structuredContent)).not.toThrow();
    const settlement = paid._meta?.['x402/payment-response'] as any;
    expect(settlement).toMatchObject({ success: true, network: 'eip155:84532', payer: account.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(fac.settles.length - before).toBe(1);
    // The same payment again is refused (replay), as a PaymentRequired result.
    const again = await call(c, 'intel_report', { hours: '24' }, { 'x402/payment': payload });
    expect(again.isError).toBe(true);
    expect((again.structuredContent as any).error).toBe('invalid_exact_evm_nonce_already_used');
  });

  it('a refused settlement is isError with the reason and no report', async () => {
    const c = await connect();
    const payer = new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())));
    const first = await call(c, 'intel_report', {});
    const payload = await payer.createPaymentPayload(first.structuredContent as unknown as PaymentRequired);
    fac.failNextSettles(1, 'refuse');
    const r = await call(c, 'intel_report', {}, { 'x402/payment': payload });
    expect(r.isError).toBe(true);
    expect((r.structuredContent as any).error).toBe('invalid_exact_evm_insufficient_balance');
    expect((r.structuredContent as any).trending_topics).toBeUndefined();
    expect(r._meta?.['x402/payment-response']).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance' });
  });

  it('a malformed payment is a PaymentRequired result too', async () => {
    const c = await connect();
    const r = await call(c, 'intel_report', {}, { 'x402/payment': { x402Version: 2, nonsense: true } });
    expect(r.isError).toBe(true);
    expect((r.structuredContent as any).x402Version).toBe(2);
    expect((r.content[1] as any).text).toMatch(/payment_invalid_encoding/);
  });
});

describe('stories tools', () => {
  it('stories lists, story reads one (unknown id: story_not_found), feed collapses by story', async () => {
    const assigned = await assignStoryItem(app.deps.db, 'article', articleId);
    expect(assigned.outcome).toBe('assigned');
    const storyId = (assigned as { storyId: number }).storyId;
    const c = await connect();
    const list = await call(c, 'stories', { per_page: '5' });
    expect(list.isError).toBeFalsy();
    expect(list.structuredContent).toMatchObject({ count: 1, results: [{ id: storyId, member_count: 1 }] });
    const one = await call(c, 'story', { id: String(storyId) });
    expect(one.structuredContent).toMatchObject({ id: storyId, members: [{ kind: 'article', id: articleId, first: true }] });
    const missing = await call(c, 'story', { id: '999999' });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toMatchObject({ error: { code: 'story_not_found' } });
    const bad = await call(c, 'stories', { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' });
    expect(bad.structuredContent).toMatchObject({ error: { code: 'validation_failed' } });
    const feed = await call(c, 'feed', { collapse: 'story' });
    const items = (feed.structuredContent as { results: { id: number; story_size: number | null }[] }).results;
    expect(items.find((i) => i.id === articleId)).toMatchObject({ story_size: 1 });
  });
});
