/**
 * Paying for the intel report over x402 v2 against a local facilitator: the whole
 * 402 -> sign -> retry -> 200 flow with the official x402 client, every rejection with its own
 * code, replay across two web processes, settlement with retries, API-key tiers.
 */
import type { Worker } from 'bullmq';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { reportSchema } from '../../src/intel/schemas.js';
import { startFacilitator, type FacilitatorServer } from '../support/facilitator-server.js';
import { apiKeyOfTier, hoursAgo, insertArticle, siblingDeps, startTestWorkers } from '../support/intel.js';
import request from '../support/request.js';
import { officialClient, payFor, paymentResponseOf, requiredOf, signedHeader, x402TestEnv } from '../support/x402.js';
import { useTestApp } from '../support/app.js';

const PAY_TO = getAddress('0x1000000000000000000000000000000000000001');
const BASE_SEPOLIA_USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const REPORT = '/api/v1/intel/report/';

let fac: FacilitatorServer;
let workers: Worker[];
const siblings: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  fac = await startFacilitator({ network: 'eip155:84532' });
});
const app = useTestApp(undefined, () => ({ ...x402TestEnv(PAY_TO, fac.url), X402_FACILITATOR_TIMEOUT_MS: '2000', JOB_WAIT_MS: '5000' }));
beforeAll(async () => {
  workers = startTestWorkers(app.deps, ['intel-report', 'settle-payment']);
  await insertArticle(app.deps.db, { tags: ['defi'], clicks: 40, publishedAt: hoursAgo(2), source: 'coindesk.com' });
  await insertArticle(app.deps.db, { tags: ['defi', 'l2'], clicks: 10, publishedAt: hoursAgo(20), source: 'theblock.co' });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  for (const s of siblings) await s.close();
  await fac.close();
});

const newAccount = () => privateKeyToAccount(generatePrivateKey());
const paymentCount = async () =>
  Number(
    (
      await app.deps.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function requirement() {
  const r = await app.http.get(REPORT);
  return requiredOf(r).accepts[0];
}

async function paymentState(id: string) {
  return (await app.http.get(`/api/v1/payments/${id}/`)).body;
}

describe('402 Payment Required', () => {
  it('without a credential: 402 with PAYMENT-REQUIRED (base64 JSON) and the same requirements in the body', async () => {
    const r = await app.http.get(REPORT);
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('payment_required');
    expect(r.headers.get('cache-control')).toBe('no-store');
    const pr = requiredOf(r);
    expect(pr.x402Version).toBe(2);
    expect(pr.resource.url).toBe('http://127.0.0.1:8000/api/v1/intel/report/');
    expect(pr.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:84532',
        asset: getAddress(BASE_SEPOLIA_USDC),
        amount: '250000',
        payTo: PAY_TO,
        maxTimeoutSeconds: 300,
        extra: { name: 'USDC', version: '2' },
      },
    ]);
    expect(r.body.error.details.accepts).toEqual(pr.accepts);
    expect(r.body.error.details.x402Version).toBe(2);
    expect(r.body.error.details.alternatives.api_key.tiers).toEqual(['builder', 'enterprise']);
  });

  it('validates the query before asking for money (400, not 402)', async () => {
    for (const q of ['hours=0', 'hours=169', 'hours=abc', 'top_n=0', 'top_n=51', 'topics=Not%20A%20Slug']) {
      const r = await app.http.get(`${REPORT}?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
    }
  });
});

describe('the x402 flow', () => {
  it('402 -> sign with the x402 client -> retry -> settled by the facilitator -> 200 with the report and a truthful PAYMENT-RESPONSE', async () => {
    const account = newAccount();
    const client = officialClient(account);
    const first = await app.http.get(REPORT);
    const headers = await payFor(client, first);
    expect(Object.keys(headers)).toEqual(['PAYMENT-SIGNATURE']);
    const settlesBefore = fac.settles.length;
    const paid = await app.http.get(REPORT, headers);
    expect(paid.status).toBe(200);
    expect(() => reportSchema.parse(paid.body)).not.toThrow();
    expect(paid.body.trending_topics.map((t: any) => t.tag)).toContain('defi');
    expect(paid.headers.get('cache-control')).toBe('private, no-store');
    // Settled before the answer: the facilitator saw exactly one /settle for it.
    expect(fac.settles.length - settlesBefore).toBe(1);
    const pres = paymentResponseOf(paid);
    expect(pres).toMatchObject({ success: true, network: 'eip155:84532', payer: account.address });
    expect(pres.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const paymentId = (pres.extra as any).payment_id as string;
    expect((pres.extra as any).status_url).toBe(`http://127.0.0.1:8000/api/v1/payments/${paymentId}/`);
    // The x402 client reads the same header.
    expect(client.getPaymentSettleResponse((n) => paid.headers.get(n)).success).toBe(true);

    const p = await paymentState(paymentId);
    expect(p).toMatchObject({
      state: 'settled',
      method: 'x402',
      purpose: 'intel_report',
      amount_atomic: '250000',
      pay_to: PAY_TO.toLowerCase(),
      attempts: 1,
      transaction: pres.transaction,
    });
    const settled = fac.settles.at(-1)!;
    expect(settled.x402Version).toBe(2);
    expect(settled.paymentRequirements).toMatchObject({ scheme: 'exact', amount: '250000', payTo: PAY_TO });

    // The same signature again is a replay.
    const again = await app.http.get(REPORT, headers);
    expect(again.status).toBe(402);
    expect(again.body.error.code).toBe('payment_replayed');
    expect(requiredOf(again).error).toBe('invalid_exact_evm_nonce_already_used');
  });

  it('serves a cached report to the second payer with the same parameters (X-Intel-Cache: hit)', async () => {
    const req = await requirement();
    const r = await app.http.get(`${REPORT}?hours=48`, { 'payment-signature': await signedHeader(newAccount(), req) });
    expect(r.status).toBe(200);
    const r2 = await app.http.get(`${REPORT}?hours=48`, { 'payment-signature': await signedHeader(newAccount(), req) });
    expect(r2.status).toBe(200);
    expect(r2.headers.get('x-intel-cache')).toBe('hit');
    expect(r2.body.generated_at).toBe(r.body.generated_at);
  });
});

describe('every rejection has its own code and consumes nothing', () => {
  it.each([
    ['not base64', () => '%%%not-base64%%%', 'payment_invalid_encoding'],
    ['base64 of non-JSON', () => Buffer.from('hello').toString('base64'), 'payment_invalid_encoding'],
    ['JSON without an authorization', () => Buffer.from(JSON.stringify({ x402Version: 2, accepted: {}, payload: {} })).toString('base64'), 'payment_invalid_encoding'],
  ])('%s -> 400 %s (the x402 v2 HTTP transport: malformed payment payload)', async (_name, make, code) => {
    const before = await paymentCount();
    const r = await app.http.get(REPORT, { 'payment-signature': make() });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.details.problem.header).toBe('PAYMENT-SIGNATURE');
    expect(requiredOf(r).accepts[0].amount).toBe('250000');
    expect(await paymentCount()).toBe(before);
  });

  it('wrong signature, amount, recipient, network, version, expired, not yet valid', async () => {
    const req = await requirement();
    const acct = newAccount();
    const now = BigInt(Math.floor(Date.now() / 1000));
    const cases: [string, Promise<string>, string, string][] = [
      ['signed by someone else for this address', signedHeader(newAccount(), req, { from: acct.address }), 'payment_invalid_signature', 'invalid_exact_evm_signature'],
      ['signed for another chain', signedHeader(acct, req, { chainId: 8453 }), 'payment_invalid_signature', 'invalid_exact_evm_signature'],
      [
        'too little',
        signedHeader(acct, req, { value: 100_000n, accepted: { amount: '100000' } }),
        'payment_wrong_amount',
        'invalid_exact_evm_payload_authorization_value_mismatch',
      ],
      [
        'accepted says the price but the authorization does not',
        signedHeader(acct, req, { value: 1n }),
        'payment_wrong_amount',
        'invalid_exact_evm_payload_authorization_value_mismatch',
      ],
      ['to someone else', signedHeader(acct, req, { to: '0x2000000000000000000000000000000000000002' }), 'payment_wrong_recipient', 'invalid_exact_evm_recipient_mismatch'],
      ['on Base mainnet', signedHeader(acct, req, { accepted: { network: 'eip155:8453' } }), 'payment_requirements_mismatch', 'invalid_exact_evm_network_mismatch'],
      [
        'another token',
        signedHeader(acct, req, { accepted: { asset: '0x3000000000000000000000000000000000000003' } }),
        'payment_requirements_mismatch',
        'invalid_exact_evm_asset_mismatch',
      ],
      ['x402 v1', signedHeader(acct, req, { x402Version: 1 }), 'payment_requirements_mismatch', 'invalid_x402_version'],
      ['expired', signedHeader(acct, req, { validBefore: now - 10n }), 'payment_expired', 'invalid_exact_evm_payload_authorization_valid_before'],
      ['valid in an hour', signedHeader(acct, req, { validAfter: now + 3600n }), 'payment_not_yet_valid', 'invalid_exact_evm_payload_authorization_valid_after'],
    ];
    const before = await paymentCount();
    for (const [name, header, code, reason] of cases) {
      const r = await app.http.get(REPORT, { 'payment-signature': await header });
      expect(r.status, name).toBe(402);
      expect(r.body.error.code, name).toBe(code);
      expect(requiredOf(r).error, name).toBe(reason);
    }
    expect(await paymentCount()).toBe(before);
  });

  it('an x402 v1 X-PAYMENT header is refused with a pointer to PAYMENT-SIGNATURE', async () => {
    const r = await app.http.get(REPORT, { 'x-payment': 'eyJ4NDAyVmVyc2lvbiI6MX0=' });
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('payment_requirements_mismatch');
    expect(r.body.error.message).toMatch(/PAYMENT-SIGNATURE/);
  });
});

describe('API keys', () => {
  it('builder and enterprise keys get the report without paying; a free key gets 402 with a pointer to builder', async () => {
    for (const tier of ['builder', 'enterprise'] as const) {
      const r = await app.http.get(REPORT, await apiKeyOfTier(app.deps.db, tier));
      expect(r.status, tier).toBe(200);
      expect(r.headers.get('payment-response')).toBeNull();
      expect(() => reportSchema.parse(r.body)).not.toThrow();
    }
    const free = await app.http.get(REPORT, await apiKeyOfTier(app.deps.db, 'free'));
    expect(free.status).toBe(402);
    expect(free.body.error.code).toBe('api_key_tier_insufficient');
    expect(free.body.error.message).toMatch(/builder/);
    expect(requiredOf(free).accepts[0].amount).toBe('250000');
  });

  it('a free key can still pay per call', async () => {
    const r = await app.http.get(REPORT, { ...(await apiKeyOfTier(app.deps.db, 'free')), 'payment-signature': await signedHeader(newAccount(), await requirement()) });
    expect(r.status).toBe(200);
    expect(paymentResponseOf(r).success).toBe(true);
  });
});

describe('replay guard across web processes', () => {
  it('the same authorization sent at once to two web apps on the same Redis and Postgres pays exactly once', async () => {
    const other = siblingDeps(app.deps);
    siblings.push(other);
    const http2 = request(createApp(other));
    const header = await signedHeader(newAccount(), await requirement());
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? http2 : app.http).get(REPORT, { 'payment-signature': header })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 402).every((r) => r.body.error.code === 'payment_replayed')).toBe(true);
    await http2.close();
  });

  it('the durable record in Postgres still refuses a replay when the Redis guard has been lost', async () => {
    const header = await signedHeader(newAccount(), await requirement());
    expect((await app.http.get(REPORT, { 'payment-signature': header })).status).toBe(200);
    const keys = await app.deps.redis.keys(`${app.deps.config.QUEUE_PREFIX}:pay:used:*`);
    await app.deps.redis.del(...keys);
    const again = await app.http.get(REPORT, { 'payment-signature': header });
    expect(again.status).toBe(402);
    expect(again.body.error.code).toBe('payment_replayed');
  });
});

describe('payment is consumed only when the report is served', () => {
  it('a report that is not ready in time is 503 intel_pending, and the same payment then works', async () => {
    // A web process with no wait budget and an uncached parameter set.
    const impatient = siblingDeps(app.deps, { JOB_WAIT_MS: 0 });
    siblings.push(impatient);
    const h = request(createApp(impatient));
    const header = await signedHeader(newAccount(), await requirement());
    const r = await h.get(`${REPORT}?hours=7&top_n=3`, { 'payment-signature': header });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('intel_pending');
    expect(r.headers.get('retry-after')).toBe('2');
    await expect.poll(async () => (await app.http.get(`${REPORT}?hours=7&top_n=3`, { 'payment-signature': header })).status, { timeout: 10_000 }).toBe(200);
    await h.close();
  });
});

/** Earlier tests' settlements must not take the failures scripted for the next one. */
async function settlementsIdle() {
  await expect
    .poll(async () => (await app.deps.db.selectFrom('payments').select('id').where('state', 'in', ['verified', 'settling']).execute()).length, { timeout: 15_000 })
    .toBe(0);
}

describe('sync settlement failures (default mode): nothing is delivered', () => {
  it('a refused settlement is 402 payment_settlement_failed with PAYMENT-RESPONSE success false; no report, no payment recorded', async () => {
    await settlementsIdle();
    fac.failNextSettles(1, 'refuse');
    const acct = newAccount();
    const before = await paymentCount();
    const r = await app.http.get(REPORT, { 'payment-signature': await signedHeader(acct, await requirement()) });
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('payment_settlement_failed');
    expect(r.body.error.details.problem.reason).toBe('invalid_exact_evm_insufficient_balance');
    expect(r.body.trending_topics).toBeUndefined();
    const pres = paymentResponseOf(r);
    expect(pres).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '', network: 'eip155:84532', payer: acct.address });
    expect(requiredOf(r).error).toBe('invalid_exact_evm_insufficient_balance');
    expect(await paymentCount()).toBe(before);
  });

  it('a facilitator 500 is 503 payment_settlement_unavailable; the same signature then pays', async () => {
    await settlementsIdle();
    fac.failNextSettles(1, 'http500');
    const header = await signedHeader(newAccount(), await requirement());
    const r = await app.http.get(REPORT, { 'payment-signature': header });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('payment_settlement_unavailable');
    expect(r.headers.get('retry-after')).toBe('5');
    const again = await app.http.get(REPORT, { 'payment-signature': header });
    expect(again.status).toBe(200);
    expect(paymentResponseOf(again).success).toBe(true);
  });

  it('a facilitator that does not answer in time is 503 payment_settlement_pending; the job resolves the outcome', async () => {
    await settlementsIdle();
    const slow = siblingDeps(app.deps, { X402_FACILITATOR_TIMEOUT_MS: 300 });
    siblings.push(slow);
    const h = request(createApp(slow));
    fac.failNextSettles(1, 'hang');
    const r = await h.get(REPORT, { 'payment-signature': await signedHeader(newAccount(), await requirement()) });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('payment_settlement_pending');
    expect(r.body.trending_topics).toBeUndefined();
    expect(r.headers.get('payment-response')).toBeNull();
    const id = r.body.error.details.payment_id as string;
    expect(r.body.error.details.status_url).toBe(`http://127.0.0.1:8000/api/v1/payments/${id}/`);
    // The worker asks the facilitator again; this time it settles.
    await expect.poll(async () => (await paymentState(id)).state, { timeout: 15_000, interval: 200 }).toBe('settled');
    await h.close();
  });
});

describe('deferred settlement (X402_SETTLEMENT_MODE=deferred)', () => {
  let dh: ReturnType<typeof request>;
  beforeAll(() => {
    const d = siblingDeps(app.deps, { X402_SETTLEMENT_MODE: 'deferred' });
    siblings.push(d);
    dh = request(createApp(d));
  });
  afterAll(() => dh.close());

  it('serves at once, PAYMENT-RESPONSE never claims success before settlement; the worker settles (retrying a failing facilitator)', async () => {
    await settlementsIdle();
    fac.failNextSettles(2, 'http500');
    const before = fac.settles.length;
    const acct = newAccount();
    const r = await dh.get(REPORT, { 'payment-signature': await signedHeader(acct, await requirement()) });
    expect(r.status).toBe(200);
    const pres = paymentResponseOf(r);
    expect(pres).toMatchObject({ success: false, errorReason: 'settlement_pending', transaction: '', network: 'eip155:84532', payer: acct.address });
    expect(pres.extra).toMatchObject({ state: 'verified', settlement: 'deferred' });
    const id = (pres.extra as any).payment_id;
    expect((pres.extra as any).status_url).toBe(`http://127.0.0.1:8000/api/v1/payments/${id}/`);
    expect(['verified', 'settling']).toContain((await paymentState(id)).state);
    await expect.poll(async () => (await paymentState(id)).state, { timeout: 15_000, interval: 200 }).toBe('settled');
    const p = await paymentState(id);
    expect(p.attempts).toBe(3);
    expect(p.error).toBeNull();
    expect(p.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(fac.settles.length - before).toBe(3);
  });

  it('a refused settlement fails the payment and suspends the payer', async () => {
    await settlementsIdle();
    fac.failNextSettles(1, 'refuse');
    const acct = newAccount();
    const r = await dh.get(REPORT, { 'payment-signature': await signedHeader(acct, await requirement()) });
    expect(r.status).toBe(200);
    expect(paymentResponseOf(r).success).toBe(false);
    const id = (paymentResponseOf(r).extra as any).payment_id;
    await expect.poll(async () => (await paymentState(id)).state, { timeout: 10_000 }).toBe('failed');
    expect((await paymentState(id)).error).toMatch(/insufficient_balance/);
    const next = await dh.get(REPORT, { 'payment-signature': await signedHeader(acct, await requirement()) });
    expect(next.status).toBe(402);
    expect(next.body.error.code).toBe('payment_payer_suspended');
  });
});

describe('payment status', () => {
  it('the payment status of an unknown id is 404, a malformed one 400', async () => {
    expect((await app.http.get('/api/v1/payments/pay_AAAAAAAAAAAAAAAAAAAAAA/')).body.error.code).toBe('payment_not_found');
    expect((await app.http.get('/api/v1/payments/nope/')).status).toBe(400);
  });
});

describe('facilitator verification mode', () => {
  it('asks the facilitator /verify first and refuses what it refuses (e.g. no balance)', async () => {
    const strict = siblingDeps(app.deps, { X402_VERIFY_MODE: 'facilitator' });
    siblings.push(strict);
    const h = request(createApp(strict));
    const poor = newAccount();
    fac.setBalance(poor.address, 0n);
    const r = await h.get(REPORT, { 'payment-signature': await signedHeader(poor, await requirement()) });
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('payment_rejected_by_facilitator');
    expect(r.body.error.details.problem.reason).toBe('invalid_exact_evm_insufficient_balance');
    const ok = await h.get(REPORT, { 'payment-signature': await signedHeader(newAccount(), await requirement()) });
    expect(ok.status).toBe(200);
    await h.close();
  });
});

describe('not configured', () => {
  it('without X402_PAY_TO the report is 503 payments_not_configured, but builder keys still work', async () => {
    const bare = siblingDeps(app.deps, { X402_PAY_TO: undefined });
    siblings.push(bare);
    const h = request(createApp(bare));
    const r = await h.get(REPORT);
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('payments_not_configured');
    expect((await h.get(REPORT, await apiKeyOfTier(app.deps.db, 'builder'))).status).toBe(200);
    await h.close();
  });

  it('a network without a known USDC and no X402_ASSET is 503 payments_not_configured, not a 500', async () => {
    const odd = siblingDeps(app.deps, { X402_NETWORK: 'eip155:999999' });
    siblings.push(odd);
    const h = request(createApp(odd));
    const r = await h.get(REPORT);
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('payments_not_configured');
    expect(r.body.error.message).toMatch(/X402_ASSET_NAME/);
    await h.close();
  });
});
