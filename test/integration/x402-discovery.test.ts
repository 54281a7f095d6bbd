/**
 * What an agent sees with no README: the official x402 fetch client (@x402/fetch + @x402/evm)
 * paying the report and a sponsored post against a local v2 facilitator, its default spending cap,
 * the x402 discovery document and its bazaar extension (also in every 402), and llms.txt.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { Worker } from 'bullmq';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { reportSchema } from '../../src/intel/schemas.js';
import { startFacilitator, type FacilitatorServer } from '../support/facilitator-server.js';
import { hoursAgo, insertArticle, siblingDeps, startTestWorkers } from '../support/intel.js';
import request from '../support/request.js';
import { requiredOf, x402TestEnv } from '../support/x402.js';
import { useTestApp } from '../support/app.js';

const PAY_TO = getAddress('0x8000000000000000000000000000000000000008');
const BASE_SEPOLIA_USDC = getAddress('0x036CbD53842c5426634e7929541eC2318f3dCF7e');

let fac: FacilitatorServer;
let workers: Worker[];
let base: string;

beforeAll(async () => {
  fac = await startFacilitator({ network: 'eip155:84532' });
});
const app = useTestApp(undefined, () => ({ ...x402TestEnv(PAY_TO, fac.url), JOB_WAIT_MS: '5000' }));
beforeAll(async () => {
  workers = startTestWorkers(app.deps, ['intel-report', 'settle-payment']);
  base = await app.http.base;
  await insertArticle(app.deps.db, { tags: ['defi'], clicks: 5, publishedAt: hoursAgo(3) });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await fac.close();
});

const newClient = () => new x402Client().register('eip155:*', new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())));

describe('the official @x402/fetch client', () => {
  it('pays the report (402, sign, retry): a settled PAYMENT-RESPONSE with the transaction hash', async () => {
    const client = newClient();
    const pay = wrapFetchWithPayment(fetch, client);
    const before = fac.settles.length;
    const res = await pay(`${base}/api/v1/intel/report/?hours=24`);
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(() => reportSchema.parse(body)).not.toThrow();
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement.success).toBe(true);
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(settlement.network).toBe('eip155:84532');
    expect(fac.settles.length - before).toBe(1);
    const id = (settlement.extra as any).payment_id;
    expect((await app.http.get(`/api/v1/payments/${id}/`)).body).toMatchObject({ state: 'settled', transaction: settlement.transaction });
  });

  it('refuses the sponsored post under its default $1 cap; with the cap raised to $25 it buys it', async () => {
    const ad = { url: 'https://example.net/launch', headline: 'Example launches', tags: ['defi'] };
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ad) };
    const capped = wrapFetchWithPayment(fetch, newClient());
    await expect(capped(`${base}/api/v1/sponsored/`, init)).rejects.toThrow(/maxAmountPerPayment/);
    const raised = wrapFetchWithPayment(fetch, newClient().setSpendControls({ maxAmountPerPayment: '$25' }));
    const res = await raised(`${base}/api/v1/sponsored/`, init);
    expect(res.status).toBe(201);
    const body: any = await res.json();
    expect(body.sponsored).toEqual({ tier: 'express', ad_status: 'sponsored_pending', is_paid: true });
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:84532' });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('a refused settlement reaches the client as a 402 with PAYMENT-RESPONSE success false', async () => {
    fac.failNextSettles(1, 'refuse');
    const res = await wrapFetchWithPayment(fetch, newClient())(`${base}/api/v1/intel/report/`);
    expect(res.status).toBe(402);
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '' });
    expect(((await res.json()) as any).error.code).toBe('payment_settlement_failed');
  });

  it('deferred mode: the client is told success false (settlement_pending) and where to look', async () => {
    const d = siblingDeps(app.deps, { X402_SETTLEMENT_MODE: 'deferred' });
    const h = request(createApp(d));
    const res = await wrapFetchWithPayment(fetch, newClient())(`${await h.base}/api/v1/intel/report/`);
    expect(res.status).toBe(200);
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: false, errorReason: 'settlement_pending', transaction: '' });
    const statusUrl = new URL((settlement.extra as any).status_url);
    await expect.poll(async () => (await app.http.get(statusUrl.pathname)).body.state, { timeout: 10_000 }).toBe('settled');
    await h.close();
    await d.close();
  });
});

describe('discovery', () => {
  it('GET /.well-known/x402 lists every paid resource with price, network, asset, payTo, description and schemas', async () => {
    const r = await app.http.get('/.well-known/x402');
    expect(r.status).toBe(200);
    expect(r.body.x402Version).toBe(2);
    const byKey = Object.fromEntries(r.body.items.map((i: any) => [`${i.type} ${i.resource} ${i.extensions.bazaar.info.input.tool ?? i.extensions.bazaar.info.input.method}`, i]));
    expect(Object.keys(byKey).sort()).toEqual([
      'http http://127.0.0.1:8000/api/v1/intel/report/ GET',
      'http http://127.0.0.1:8000/api/v1/sponsored/ POST',
      'mcp http://127.0.0.1:8000/mcp intel_report',
    ]);
    const report = byKey['http http://127.0.0.1:8000/api/v1/intel/report/ GET'];
    expect(report.accepts).toEqual([
      { scheme: 'exact', network: 'eip155:84532', asset: BASE_SEPOLIA_USDC, amount: '250000', payTo: PAY_TO, maxTimeoutSeconds: 300, extra: { name: 'USDC', version: '2' } },
    ]);
    expect(report.description).toMatch(/intelligence report/);
    const schema = report.extensions.bazaar.schema;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(schema.properties.input.properties.queryParams.properties).sort()).toEqual(['hours', 'top_n', 'topics']);
    expect(Object.keys(schema.properties.output.properties.example.properties)).toContain('trending_topics');
    const ad = byKey['http http://127.0.0.1:8000/api/v1/sponsored/ POST'];
    expect(ad.accepts[0].amount).toBe('25000000');
    expect(ad.extensions.bazaar.info.input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json' });
    expect(Object.keys(ad.extensions.bazaar.schema.properties.input.properties.body.properties).sort()).toEqual(['headline', 'tags', 'tier', 'url']);
    expect(r.body.links).toMatchObject({ mcp: 'http://127.0.0.1:8000/mcp', openapi: 'http://127.0.0.1:8000/api/v1/openapi.json' });
  });

  it('the 402 carries the same bazaar extension (header: without the output schema)', async () => {
    const r = await app.http.get('/api/v1/intel/report/');
    const pr = requiredOf(r);
    const disc = (await app.http.get('/.well-known/x402')).body.items.find((i: any) => i.resource.endsWith('/intel/report/'));
    expect((pr.extensions as any).bazaar.info).toEqual(disc.extensions.bazaar.info);
    expect((pr.extensions as any).bazaar.schema.properties.input).toEqual(disc.extensions.bazaar.schema.properties.input);
    expect(r.body.error.details.extensions.bazaar).toEqual(disc.extensions.bazaar);
    expect(r.headers.get('payment-required')!.length).toBeLessThan(8192);
  });

  it('without X402_PAY_TO the discovery document is 503 payments_not_configured', async () => {
    const bare = siblingDeps(app.deps, { X402_PAY_TO: undefined });
    const h = request(createApp(bare));
    const r = await h.get('/.well-known/x402');
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('payments_not_configured');
    await h.close();
    await bare.close();
  });

  it('llms.txt summarises the API and links the OpenAPI document, the discovery document and the MCP endpoint', async () => {
    const r = await app.http.get('/llms.txt');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/^# Squid News API/);
    for (const link of ['http://127.0.0.1:8000/api/v1/openapi.json', 'http://127.0.0.1:8000/.well-known/x402', 'http://127.0.0.1:8000/mcp']) expect(r.text).toContain(link);
    expect(r.text).toContain('- GET /api/v1/intel/report/: ');
    expect(r.text).toContain('- POST /api/v1/news/post: ');
    expect(r.text).toMatch(/0\.25 USD per call/);
    // An agent learns how to retry a timed-out settlement without paying twice.
    expect(r.text).toMatch(/payment_settlement_pending.*retry with the SAME PAYMENT-SIGNATURE/);
  });
});
