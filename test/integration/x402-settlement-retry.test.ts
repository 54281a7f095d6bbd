/**
 * Sync settlement that times out (503 payment_settlement_pending): the payer may have been charged,
 * so the retry with the SAME PAYMENT-SIGNATURE must deliver what was paid for, exactly once, and
 * never charge twice. Driven with the official @x402/fetch client against the local v2
 * facilitator, scripted to hang (the request times out), be unreachable, refuse, then succeed.
 * No settle-payment worker runs unless a test starts one, so the request path is what settles.
 */
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { Worker } from 'bullmq';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { reportSchema } from '../../src/intel/schemas.js';
import { startFacilitator, type FacilitatorServer } from '../support/facilitator-server.js';
import { hoursAgo, insertArticle, siblingDeps, startTestWorkers } from '../support/intel.js';
import request from '../support/request.js';
import { paymentResponseOf, requiredOf, signedHeader, x402TestEnv } from '../support/x402.js';
import { useTestApp } from '../support/app.js';

const PAY_TO = getAddress('0x9000000000000000000000000000000000000009');
const REPORT = '/api/v1/intel/report/';
const SPONSORED = '/api/v1/sponsored/';

let fac: FacilitatorServer;
let workers: Worker[];
let base: string;
/** The same service whose facilitator URL refuses connections (the facilitator is down). */
let down: ReturnType<typeof request>;
let downDeps: ReturnType<typeof siblingDeps>;
/** The same service with a 300 ms facilitator timeout: where the first, timed-out attempt is made (retries go to the patient one). */
let impatient: ReturnType<typeof request>;
let impatientBase: string;
let impatientDeps: ReturnType<typeof siblingDeps>;

beforeAll(async () => {
  fac = await startFacilitator({ network: 'eip155:84532' });
});
const app = useTestApp(undefined, () => ({ ...x402TestEnv(PAY_TO, fac.url), X402_FACILITATOR_TIMEOUT_MS: '5000', SPONSORED_PRICE_ATOMIC: '25000000', JOB_WAIT_MS: '5000' }));
beforeAll(async () => {
  workers = startTestWorkers(app.deps, ['intel-report']);
  base = await app.http.base;
  downDeps = siblingDeps(app.deps, { X402_FACILITATOR_URL: 'http://127.0.0.1:1' });
  down = request(createApp(downDeps));
  impatientDeps = siblingDeps(app.deps, { X402_FACILITATOR_TIMEOUT_MS: 300 });
  impatient = request(createApp(impatientDeps));
  impatientBase = await impatient.base;
  await insertArticle(app.deps.db, { tags: ['defi'], clicks: 12, publishedAt: hoursAgo(2) });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await down.close();
  await downDeps.close();
  await impatient.close();
  await impatientDeps.close();
  await fac.close();
});

/**
 * The official client, and the PAYMENT-SIGNATURE it sent (read off the wire by the inner fetch):
 * what an agent keeps to retry after a 503 (the wrapper passes a request that already carries one).
 */
function agent(account: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey())) {
  const sent: string[] = [];
  const inner: typeof fetch = async (input, init) => {
    const req = new Request(input, init);
    const sig = req.headers.get('payment-signature');
    if (sig) sent.push(sig);
    return fetch(req);
  };
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(account)).setSpendControls({ maxAmountPerPayment: '$25' });
  return { account, pay: wrapFetchWithPayment(inner, client), sent };
}

const json = async (res: Response) => (await res.json()) as any;

async function payment(id: string) {
  return app.deps.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** A sync payment whose /settle hangs past X402_FACILITATOR_TIMEOUT_MS: 503 pending, recorded undelivered. */
async function timedOut(a: ReturnType<typeof agent>, path: string, init?: RequestInit) {
  fac.failNextSettles(1, 'hang');
  const res = await a.pay(`${impatientBase}${path}`, init);
  expect(res.status).toBe(503);
  const body = await json(res);
  expect(body.error.code).toBe('payment_settlement_pending');
  expect(res.headers.get('retry-after')).toBe('5');
  expect(res.headers.get('payment-response')).toBeNull();
  expect(body.error.message).toMatch(/same PAYMENT-SIGNATURE/);
  expect(a.sent).toHaveLength(1);
  const id = body.error.details.payment_id as string;
  expect(await payment(id)).toMatchObject({ state: 'verified', delivered_at: null });
  return { id, signature: a.sent[0] };
}

describe('the report: retry with the same PAYMENT-SIGNATURE after 503 payment_settlement_pending', () => {
  it('still down: 503 pending again; facilitator back: settled now and delivered once with a truthful PAYMENT-RESPONSE; then a replay', async () => {
    const a = agent();
    const { id, signature } = await timedOut(a, REPORT);

    // The facilitator is unreachable: nothing delivered, still pending, Retry-After again.
    const stillDown = await down.get(REPORT, { 'payment-signature': signature });
    expect(stillDown.status).toBe(503);
    expect(stillDown.body.error.code).toBe('payment_settlement_pending');
    expect(stillDown.body.error.details.payment_id).toBe(id);
    expect(stillDown.headers.get('retry-after')).toBe('5');
    expect(stillDown.body.trending_topics).toBeUndefined();
    expect((await payment(id)).delivered_at).toBeNull();
    expect((await payment(id)).last_error).toMatch(/^indeterminate:/);

    // The facilitator answers now: the retry (through the official client) settles it and gets the report.
    const settlesBefore = fac.settles.length;
    const res = await a.pay(`${base}${REPORT}`, { headers: { 'PAYMENT-SIGNATURE': signature } });
    expect(res.status).toBe(200);
    const report = await json(res);
    expect(() => reportSchema.parse(report)).not.toThrow();
    expect(fac.settles.length - settlesBefore).toBe(1);
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:84532', payer: a.account.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(settlement.extra).toMatchObject({ payment_id: id, state: 'settled' });
    const row = await payment(id);
    expect(row).toMatchObject({ state: 'settled', transaction_hash: settlement.transaction });
    expect(row.delivered_at).toBeInstanceOf(Date);
    const status = await app.http.get(`/api/v1/payments/${id}/`);
    expect(status.body).toMatchObject({ state: 'settled', transaction: settlement.transaction });
    expect(status.body.delivered_at).toBe(row.delivered_at!.toISOString());

    // Delivered: the same signature again is a replay, and the facilitator is not asked again.
    const again = await app.http.get(REPORT, { 'payment-signature': signature });
    expect(again.status).toBe(402);
    expect(again.body.error.code).toBe('payment_replayed');
    expect(requiredOf(again).error).toBe('invalid_exact_evm_nonce_already_used');
    expect(fac.settles.length - settlesBefore).toBe(1);
    // Only one authorization was ever signed.
    expect(a.sent).toEqual([signature, signature]);
  });

  it('settled by the settle-payment job first: the retry delivers it without another /settle, even after the authorization expired; once', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const req = requiredOf(await app.http.get(REPORT)).accepts[0];
    // validBefore 20 s ahead (time for the job on a loaded machine): local verification refuses it as expired 6 s before that.
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 20);
    const signature = await signedHeader(account, req, { validBefore });
    fac.failNextSettles(1, 'hang');
    const first = await impatient.get(REPORT, { 'payment-signature': signature });
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('payment_settlement_pending');
    const id = first.body.error.details.payment_id as string;

    const settler = startTestWorkers(app.deps, ['settle-payment']);
    try {
      await expect.poll(async () => (await payment(id)).state, { timeout: 15_000, interval: 100 }).toBe('settled');
    } finally {
      await Promise.all(settler.map((w) => w.close()));
    }
    const row = await payment(id);
    expect(row.transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(row.delivered_at).toBeNull();

    // Wait until the authorization no longer verifies as fresh: a new payment with it would be payment_expired.
    // A wait for the clock itself (validBefore is a wall-clock second the service compares with its
    // own clock); polling with a new payment would spend the authorization before it expires.
    const waitMs = (Number(validBefore) - 5) * 1000 - Date.now() + 200;
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    const fresh = await signedHeader(account, req, { validBefore });
    expect((await app.http.get(REPORT, { 'payment-signature': fresh })).body.error.code).toBe('payment_expired');

    const settlesBefore = fac.settles.length;
    const res = await app.http.get(REPORT, { 'payment-signature': signature });
    expect(res.status).toBe(200);
    expect(() => reportSchema.parse(res.body)).not.toThrow();
    expect(paymentResponseOf(res)).toMatchObject({ success: true, transaction: row.transaction_hash, network: 'eip155:84532', payer: account.address });
    expect(fac.settles.length).toBe(settlesBefore);

    const again = await app.http.get(REPORT, { 'payment-signature': signature });
    expect(again.status).toBe(402);
    expect(again.body.error.code).toBe('payment_replayed');
  }, 60_000);

  it('a settlement refused on retry is 402 payment_settlement_failed with the reason, and stays so; nothing delivered', async () => {
    const a = agent();
    const { id, signature } = await timedOut(a, REPORT);
    fac.failNextSettles(1, 'refuse');
    const refused = await app.http.get(REPORT, { 'payment-signature': signature });
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('payment_settlement_failed');
    expect(refused.body.error.details.problem.reason).toBe('invalid_exact_evm_insufficient_balance');
    expect(refused.body.trending_topics).toBeUndefined();
    expect(paymentResponseOf(refused)).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '', payer: a.account.address });
    expect(await payment(id)).toMatchObject({ state: 'failed', delivered_at: null });

    // Failed for good: the same answer again, without asking the facilitator.
    const settlesBefore = fac.settles.length;
    const again = await app.http.get(REPORT, { 'payment-signature': signature });
    expect(again.status).toBe(402);
    expect(again.body.error.code).toBe('payment_settlement_failed');
    expect(again.body.error.details.problem.reason).toBe('invalid_exact_evm_insufficient_balance');
    expect(fac.settles.length).toBe(settlesBefore);
  });

  it('concurrent retries of one pending payment: one /settle, one delivery, the others are replays or still pending', async () => {
    const a = agent();
    const { id, signature } = await timedOut(a, REPORT);
    const settlesBefore = fac.settles.length;
    const results = await Promise.all(Array.from({ length: 6 }, () => app.http.get(REPORT, { 'payment-signature': signature })));
    const codes = results.map((r) => (r.status === 200 ? 200 : r.body.error.code));
    expect(codes.filter((c) => c === 200)).toHaveLength(1);
    expect(codes.every((c) => c === 200 || c === 'payment_replayed' || c === 'payment_settlement_pending')).toBe(true);
    expect((await payment(id)).state).toBe('settled');
    expect(fac.settles.length - settlesBefore).toBe(1);
  });

  it('the signature of a pending report payment does not buy another resource at the same price: a replay', async () => {
    const a = agent();
    const { id, signature } = await timedOut(a, REPORT);
    // A server where a sponsored post costs what the report costs: the same authorization verifies for both.
    const same = siblingDeps(app.deps, { SPONSORED_PRICE_ATOMIC: app.deps.config.X402_PRICE_ATOMIC });
    const h = request(createApp(same));
    try {
      const r = await h.post(SPONSORED, { url: 'https://example.org/x', headline: 'x' }, { 'payment-signature': signature });
      expect(r.status).toBe(402);
      expect(r.body.error.code).toBe('payment_replayed');
      expect(await payment(id)).toMatchObject({ state: 'verified', delivered_at: null, article_id: null });
    } finally {
      await h.close();
      await same.close();
    }
  });
});

describe('the sponsored post: a retry never creates a second post', () => {
  const ad = { url: 'https://example-retry.xyz/launch', headline: 'Retry launches', tags: ['defi'] };
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ad) };
  const ads = async () =>
    Number(
      (
        await app.deps.db
          .selectFrom('articles')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('origin', '=', 'x402_ad')
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('timed out: no post; the retry settles and creates exactly one paid post; a further retry is a replay', async () => {
    const before = await ads();
    const a = agent();
    const { id, signature } = await timedOut(a, SPONSORED, init);
    expect(await ads()).toBe(before);

    const res = await a.pay(`${base}${SPONSORED}`, { ...init, headers: { ...init.headers, 'PAYMENT-SIGNATURE': signature } });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.sponsored).toEqual({ tier: 'express', ad_status: 'sponsored_pending', is_paid: true });
    expect(body.payment).toMatchObject({ id, state: 'settled' });
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:84532', payer: a.account.address });
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await ads()).toBe(before + 1);
    expect((await payment(id)).article_id).toBe(body.article_id);

    const again = await app.http.post(SPONSORED, ad, { 'payment-signature': signature });
    expect(again.status).toBe(402);
    expect(again.body.error.code).toBe('payment_replayed');
    expect(await ads()).toBe(before + 1);
  });
});
