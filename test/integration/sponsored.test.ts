/**
 * Sponsored posts: bought over x402 (or the mainnet fallback), reviewed by an editor, published with
 * news.sponsored; the ad states and who may move them.
 */
import type { Worker } from 'bullmq';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startFacilitator, type FacilitatorServer } from '../support/facilitator-server.js';
import { apiKeyOfTier, siblingDeps, startTestWorkers } from '../support/intel.js';
import { MAINNET_USDC, startJsonRpc, type JsonRpcServer } from '../support/jsonrpc-server.js';
import request from '../support/request.js';
import { officialClient, payFor, paymentResponseOf, requiredOf, x402TestEnv } from '../support/x402.js';
import { relayed, startRelay, type RunningRelay } from '../support/relay.js';
import { useTestApp } from '../support/app.js';

let relay: RunningRelay;

const PAY_TO = getAddress('0x6000000000000000000000000000000000000006');
const PRICE = 25_000_000n;
let fac: FacilitatorServer;
let rpc: JsonRpcServer;
let workers: Worker[];
/** The same service with X402_SETTLEMENT_MODE=deferred (served before settlement). */
let deferred: ReturnType<typeof request>;
let deferredDeps: ReturnType<typeof siblingDeps>;

beforeAll(async () => {
  fac = await startFacilitator({ network: 'eip155:84532' });
  rpc = await startJsonRpc();
});
const app = useTestApp({ editor: { roles: ['editor'] }, reader: {} }, () => ({ ...x402TestEnv(PAY_TO, fac.url), ETH_RPC_URL: rpc.url, SPONSORED_PRICE_ATOMIC: String(PRICE) }));
beforeAll(async () => {
  workers = startTestWorkers(app.deps, ['settle-payment']);
  relay = await startRelay(app.deps);
  deferredDeps = siblingDeps(app.deps, { X402_SETTLEMENT_MODE: 'deferred' });
  deferred = request(createApp(deferredDeps));
});

afterAll(async () => {
  await relay.close();
  await Promise.all(workers.map((w) => w.close()));
  await deferred.close();
  await deferredDeps.close();
  await fac.close();
  await rpc.close();
});

const ad = { url: 'https://example-defi.xyz/launch?utm_source=squid', headline: '  Example DeFi launches   v2 ', tags: ['DeFi', 'launch'] };

async function buy(body: unknown = ad, extraHeaders: Record<string, string> = {}, via = app.http) {
  const client = officialClient(privateKeyToAccount(generatePrivateKey()));
  const first = await via.post('/api/v1/sponsored/', body, extraHeaders);
  expect(first.status).toBe(402);
  const paid = await via.post('/api/v1/sponsored/', body, { ...extraHeaders, ...(await payFor(client, first)) });
  return paid;
}

/** Earlier settlements must not take the failures scripted for the next one. */
async function settlementsIdle() {
  await expect
    .poll(async () => (await app.deps.db.selectFrom('payments').select('id').where('state', 'in', ['verified', 'settling']).execute()).length, { timeout: 15_000 })
    .toBe(0);
}

async function lastEvent() {
  await relayed(app.deps);
  const [entry] = (await app.deps.redis.xrevrange(app.deps.events.streamKey, '+', '-', 'COUNT', 1)) as [string, string[]][];
  return JSON.parse(entry[1][1]);
}

async function adState(id: number) {
  return (await app.deps.db.selectFrom('articles').select(['status', 'sponsored', 'origin', 'published_at']).where('id', '=', id).executeTakeFirstOrThrow()) as {
    status: string;
    sponsored: any;
    origin: string;
    published_at: Date | null;
  };
}

describe('buying', () => {
  it('a bad body is 400 before any payment is asked for', async () => {
    for (const body of [{}, { url: 'ftp://x.y/z', headline: 'h' }, { url: 'https://x.y/', headline: '' }, { ...ad, tags: ['not a slug'] }, { ...ad, tier: 'gold' }]) {
      const r = await app.http.post('/api/v1/sponsored/', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
    }
  });

  it('asks for the sponsored price over x402; API keys do not pay for ads', async () => {
    const r = await app.http.post('/api/v1/sponsored/', ad);
    expect(r.status).toBe(402);
    expect(requiredOf(r).accepts[0]).toMatchObject({ amount: String(PRICE), payTo: PAY_TO, scheme: 'exact', network: 'eip155:84532' });
    expect(requiredOf(r).resource.url).toMatch(/\/api\/v1\/sponsored\/$/);
    const withKey = await app.http.post('/api/v1/sponsored/', ad, await apiKeyOfTier(app.deps.db, 'enterprise'));
    expect(withKey.status).toBe(402);
    expect(withKey.body.error.code).toBe('api_key_tier_insufficient');
  });

  it('paid over x402: settled before the answer, a submitted x402_ad article, pending review, is_paid at once', async () => {
    const r = await buy();
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      headline: 'Example DeFi launches v2',
      url: ad.url,
      source: 'example-defi.xyz',
      status: 'submitted',
      origin: 'x402_ad',
      tags: ['defi', 'launch'],
      sponsored: { tier: 'express', ad_status: 'sponsored_pending', is_paid: true },
      payment: { method: 'x402', state: 'settled' },
    });
    expect(paymentResponseOf(r).success).toBe(true);
    expect(paymentResponseOf(r).transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await adState(r.body.article_id)).sponsored.is_paid).toBe(true);
    expect((await app.http.get(`/api/v1/payments/${r.body.payment.id}/`)).body).toMatchObject({
      state: 'settled',
      purpose: 'sponsored_post',
      article_id: r.body.article_id,
      amount_atomic: String(PRICE),
    });
  });

  it('a signed-in buyer is recorded as the submitter', async () => {
    const r = await buy(ad, app.reader.bearer);
    expect(r.status).toBe(201);
    const row = await app.deps.db.selectFrom('articles').select('submitted_by').where('id', '=', r.body.article_id).executeTakeFirstOrThrow();
    expect(row.submitted_by).toBe(app.reader.userId);
  });

  it('paid with a mainnet transfer: is_paid at once', async () => {
    const from = privateKeyToAccount(generatePrivateKey()).address;
    const tx = rpc.addTransaction({ transfers: [{ token: MAINNET_USDC, from, to: PAY_TO, value: PRICE }], blockNumber: rpc.head - 20n });
    const r = await app.http.post('/api/v1/sponsored/', ad, { 'x-payment-tx': tx, 'x-payment-from': from });
    expect(r.status).toBe(201);
    expect(r.body.sponsored).toEqual({ tier: 'express', ad_status: 'sponsored_pending', is_paid: true });
    expect(r.body.payment).toMatchObject({ method: 'mainnet_transfer', state: 'settled' });
    // A report-priced transfer does not buy an ad.
    const cheap = rpc.addTransaction({ transfers: [{ token: MAINNET_USDC, from, to: PAY_TO, value: 250_000n }], blockNumber: rpc.head - 20n });
    const r2 = await app.http.post('/api/v1/sponsored/', ad, { 'x-payment-tx': cheap, 'x-payment-from': from });
    expect(r2.body.error.code).toBe('payment_insufficient');
  });
});

describe('editor review', () => {
  it('approve: the ad goes live and news.sponsored is published with the sponsored object', async () => {
    await settlementsIdle();
    fac.failNextSettles(1, 'http500');
    const r = await buy(ad, {}, deferred);
    expect(r.status).toBe(201);
    expect(paymentResponseOf(r)).toMatchObject({ success: false, errorReason: 'settlement_pending' });
    expect(r.body.sponsored.is_paid).toBe(false);
    const id = r.body.article_id;
    // Deferred mode, settlement being retried: the ad cannot go live unpaid.
    const early = await app.http.post(`/api/v1/sponsored/${id}/approve`, undefined, app.editor.bearer);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('ad_not_paid');
    await expect.poll(async () => (await adState(id)).sponsored.is_paid, { timeout: 10_000 }).toBe(true);

    // An anonymous reader's feed is cached (2 s) just before the approval...
    const before = await app.http.get('/api/v1/news/?sort_type=new');
    expect(before.body.results.map((a: any) => a.id)).not.toContain(id);
    const ok = await app.http.post(`/api/v1/sponsored/${id}/approve`, undefined, app.editor.bearer);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'approved', sponsored: { tier: 'express', ad_status: 'sponsored_approved', is_paid: true } });
    expect(ok.body.published_at).not.toBeNull();
    const ev = await lastEvent();
    expect(ev).toMatchObject({
      type: 'news.sponsored',
      id,
      status: 'approved',
      origin: 'x402_ad',
      previous_status: 'submitted',
      headline: 'Example DeFi launches v2',
      sponsored: { tier: 'express', ad_status: 'sponsored_approved', is_paid: true },
    });
    expect((await adState(id)).published_at).not.toBeNull();
    const hot = await app.deps.db.selectFrom('article_hot_scores').select('hot_computed_at').where('article_id', '=', id).executeTakeFirstOrThrow();
    expect(hot.hot_computed_at).not.toBeNull();

    // ...and the approval retired that cache: marked in the public feed at once.
    const feed = await app.http.get('/api/v1/news/?sort_type=new');
    const item = feed.body.results.find((a: any) => a.id === id);
    expect(item).toMatchObject({ origin: 'x402_ad', sponsored: { tier: 'express', ad_status: 'sponsored_approved', is_paid: true } });

    const twice = await app.http.post(`/api/v1/sponsored/${id}/approve`, undefined, app.editor.bearer);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('ad_not_pending');
    expect(twice.body.error.details.ad_status).toBe('sponsored_approved');
  });

  it('the generic editorial approve refuses a sponsored post (it must go through /sponsored/<id>/approve)', async () => {
    const r = await buy();
    const id = r.body.article_id;
    const generic = await app.http.post(`/api/v1/news/${id}/approve`, undefined, app.editor.bearer);
    expect(generic.status).toBe(409);
    expect(generic.body.error.code).toBe('sponsored_review_required');
    expect((await adState(id)).status).toBe('submitted');
  });

  it('reject: killed, staff-only news.killed', async () => {
    const r = await buy();
    const id = r.body.article_id;
    const rej = await app.http.post(`/api/v1/sponsored/${id}/reject`, undefined, app.editor.bearer);
    expect(rej.status).toBe(200);
    expect(rej.body).toMatchObject({ status: 'killed', sponsored: { ad_status: 'sponsored_rejected' } });
    expect(await lastEvent()).toMatchObject({ type: 'news.killed', id, origin: 'x402_ad' });
  });

  it('sync mode: a refused settlement is 402 payment_settlement_failed and creates no ad', async () => {
    await settlementsIdle();
    fac.failNextSettles(1, 'refuse');
    const before = await app.deps.db
      .selectFrom('articles')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('origin', '=', 'x402_ad')
      .executeTakeFirstOrThrow();
    const r = await buy();
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('payment_settlement_failed');
    expect(paymentResponseOf(r)).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '' });
    const after = await app.deps.db
      .selectFrom('articles')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('origin', '=', 'x402_ad')
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('deferred mode: a payment that never settles kills the ad as sponsored_payment_failed', async () => {
    await settlementsIdle();
    fac.failNextSettles(1, 'refuse');
    const r = await buy(ad, {}, deferred);
    const id = r.body.article_id;
    await expect.poll(async () => (await adState(id)).sponsored.ad_status, { timeout: 10_000 }).toBe('sponsored_payment_failed');
    expect(await adState(id)).toMatchObject({ status: 'killed', sponsored: { is_paid: false } });
    const a = await app.http.post(`/api/v1/sponsored/${id}/approve`, undefined, app.editor.bearer);
    expect(a.body.error.code).toBe('ad_not_pending');
  });

  it('only editors: 401 anonymous, 403 readers; 404 for an unknown or non-sponsored article; 400 for a bad id', async () => {
    expect((await app.http.post('/api/v1/sponsored/1/approve')).status).toBe(401);
    const forbidden = await app.http.post('/api/v1/sponsored/1/approve', undefined, app.reader.bearer);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('editor_required');
    expect((await app.http.post('/api/v1/sponsored/999999/approve', undefined, app.editor.bearer)).body.error.code).toBe('ad_not_found');
    const plain = await app.deps.db
      .insertInto('articles')
      .values({ slug: 'p', headline: 'Plain', url: 'https://p.com/', normalized_url: 'https://p.com/', status: 'submitted' })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect((await app.http.post(`/api/v1/sponsored/${plain.id}/approve`, undefined, app.editor.bearer)).body.error.code).toBe('ad_not_found');
    expect((await app.http.post('/api/v1/sponsored/abc/approve', undefined, app.editor.bearer)).status).toBe(400);
    expect((await app.http.get('/api/v1/sponsored/', app.reader.bearer)).status).toBe(403);
  });

  it('editors list ads, filtered by state', async () => {
    const all = await app.http.get('/api/v1/sponsored/', app.editor.bearer);
    expect(all.status).toBe(200);
    expect(all.body.count).toBeGreaterThanOrEqual(5);
    const approved = await app.http.get('/api/v1/sponsored/?ad_status=sponsored_approved', app.editor.bearer);
    expect(approved.body.results.length).toBeGreaterThanOrEqual(1);
    expect(approved.body.results.every((a: any) => a.sponsored.ad_status === 'sponsored_approved')).toBe(true);
    expect((await app.http.get('/api/v1/sponsored/?ad_status=bogus', app.editor.bearer)).status).toBe(400);
  });
});
