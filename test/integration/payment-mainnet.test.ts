/**
 * The mainnet stablecoin fallback (X-Payment-Tx + X-Payment-From) against a local Ethereum JSON-RPC
 * server returning real-shaped receipts: accepted transfers, each rejection code, confirmations,
 * one call per transaction hash.
 */
import type { Worker } from 'bullmq';
import { getAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { reportSchema } from '../../src/intel/schemas.js';
import { insertArticle, siblingDeps, startTestWorkers } from '../support/intel.js';
import { MAINNET_USDC, MAINNET_USDT, startJsonRpc, type JsonRpcServer } from '../support/jsonrpc-server.js';
import request from '../support/request.js';
import { paymentResponseOf, requiredOf } from '../support/x402.js';
import { useTestApp } from '../support/app.js';

const PAY_TO = getAddress('0x4000000000000000000000000000000000000004');
const REPORT = '/api/v1/intel/report/';

let rpc: JsonRpcServer;
let workers: Worker[];
const extra: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  rpc = await startJsonRpc();
});
const app = useTestApp(undefined, () => ({ X402_PAY_TO: PAY_TO, X402_NETWORK: 'eip155:84532', ETH_RPC_URL: rpc.url, MAINNET_MIN_CONFIRMATIONS: '12', JOB_WAIT_MS: '5000' }));
beforeAll(async () => {
  workers = startTestWorkers(app.deps, ['intel-report']);
  await insertArticle(app.deps.db, { tags: ['eth'], clicks: 5 });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.close()));
  for (const e of extra) await e.close();
  await rpc.close();
});

const payer = (): Address => privateKeyToAccount(generatePrivateKey()).address;
const fallback = (tx: string, from: string) => ({ 'x-payment-tx': tx, 'x-payment-from': from });
const mined = (confirmations: number) => rpc.head - BigInt(confirmations) + 1n;

describe('accepted transfers', () => {
  it('a confirmed USDC transfer of 0.25 to payTo pays for one call; the same hash again is a replay', async () => {
    const from = payer();
    const tx = rpc.addTransaction({ transfers: [{ token: MAINNET_USDC, from, to: PAY_TO, value: 250_000n }], blockNumber: mined(12) });
    const r = await app.http.get(REPORT, fallback(tx, from));
    expect(r.status).toBe(200);
    expect(() => reportSchema.parse(r.body)).not.toThrow();
    const pres = paymentResponseOf(r);
    expect(pres).toMatchObject({ success: true, transaction: tx, network: 'eip155:1', payer: from });
    const p = (await app.http.get(`/api/v1/payments/${(pres.extra as any).payment_id}/`)).body;
    expect(p).toMatchObject({ method: 'mainnet_transfer', state: 'settled', transaction: tx, amount_atomic: '250000', asset: MAINNET_USDC.toLowerCase() });
    expect(rpc.calls.map((c) => c.method)).toEqual(expect.arrayContaining(['eth_chainId', 'eth_getTransactionReceipt', 'eth_blockNumber']));

    const again = await app.http.get(REPORT, fallback(tx, from));
    expect(again.status).toBe(402);
    expect(again.body.error.code).toBe('payment_replayed');
    // Also from another web process, and with the hash in upper case.
    const other = siblingDeps(app.deps);
    extra.push(other);
    const h2 = request(createApp(other));
    const third = await h2.get(REPORT, fallback(`0x${tx.slice(2).toUpperCase()}`, from));
    expect(third.body.error.code).toBe('payment_replayed');
    await h2.close();
  });

  it('USDT works too, and several transfers in one transaction add up', async () => {
    const from = payer();
    const tx = rpc.addTransaction({
      transfers: [
        { token: MAINNET_USDT, from, to: PAY_TO, value: 150_000n },
        { token: MAINNET_USDC, from, to: PAY_TO, value: 100_000n },
      ],
      blockNumber: mined(30),
    });
    expect((await app.http.get(REPORT, fallback(tx, from))).status).toBe(200);
  });

  it('a transaction that is not yet confirmed enough is refused with Retry-After and not consumed', async () => {
    const from = payer();
    const tx = rpc.addTransaction({ transfers: [{ token: MAINNET_USDC, from, to: PAY_TO, value: 300_000n }], blockNumber: mined(3) });
    const r = await app.http.get(REPORT, fallback(tx, from));
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('payment_tx_unconfirmed');
    expect(r.body.error.details.problem).toMatchObject({ confirmations: 3, required: 12 });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(12);
    rpc.head += 9n;
    expect((await app.http.get(REPORT, fallback(tx, from))).status).toBe(200);
  });
});

describe('rejections', () => {
  it('each problem has its own code', async () => {
    const from = payer();
    const other = payer();
    const ok = mined(20);
    const cases: [string, string, string, string][] = [
      ['unknown hash', `0x${'ab'.repeat(32)}`, from, 'payment_tx_unknown'],
      ['reverted', rpc.addTransaction({ transfers: [{ token: MAINNET_USDC, from, to: PAY_TO, value: 250_000n }], blockNumber: ok, status: 'reverted' }), from, 'payment_tx_failed'],
      ['to someone else', rpc.addTransaction({ transfers: [{ token: MAINNET_USDC, from, to: other, value: 250_000n }], blockNumber: ok }), from, 'payment_tx_no_transfer'],
      [
        'from someone else',
        rpc.addTransaction({ transfers: [{ token: MAINNET_USDC, from: other, to: PAY_TO, value: 250_000n }], blockNumber: ok }),
        from,
        'payment_tx_no_transfer',
      ],
      [
        'not a stablecoin',
        rpc.addTransaction({ transfers: [{ token: '0x6B175474E89094C44Da98b954EedeAC495271d0F', from, to: PAY_TO, value: 10n ** 18n }], blockNumber: ok }),
        from,
        'payment_tx_no_transfer',
      ],
      ['too little', rpc.addTransaction({ transfers: [{ token: MAINNET_USDC, from, to: PAY_TO, value: 249_999n }], blockNumber: ok }), from, 'payment_insufficient'],
      ['malformed hash', '0x1234', from, 'payment_invalid_encoding'],
      ['malformed sender', `0x${'cd'.repeat(32)}`, 'nobody', 'payment_invalid_encoding'],
    ];
    for (const [name, tx, sender, code] of cases) {
      const r = await app.http.get(REPORT, fallback(tx, sender));
      expect(r.status, name).toBe(402);
      expect(r.body.error.code, name).toBe(code);
      expect(requiredOf(r).accepts[0].payTo, name).toBe(PAY_TO);
    }
    const insufficient = await app.http.get(REPORT, fallback(cases[5][1], from));
    expect(insufficient.body.error.details.problem).toMatchObject({ transferred: '249999', required: '250000' });
    const onlyTx = await app.http.get(REPORT, { 'x-payment-tx': `0x${'ef'.repeat(32)}` });
    expect(onlyTx.body.error.code).toBe('payment_invalid_encoding');
    expect(onlyTx.body.error.details.problem.header).toBe('X-Payment-From');
    expect(await app.deps.db.selectFrom('payments').select('id').where('state', '=', 'failed').execute()).toHaveLength(0);
  });

  it('the 402 advertises the fallback: chain, tokens, payTo, amount, confirmations', async () => {
    const r = await app.http.get(REPORT);
    expect(r.body.error.details.alternatives.mainnet_transfer).toEqual({
      headers: ['X-Payment-Tx', 'X-Payment-From'],
      chain_id: 1,
      tokens: { USDC: MAINNET_USDC, USDT: MAINNET_USDT },
      pay_to: PAY_TO,
      min_amount_atomic: '250000',
      min_confirmations: 12,
    });
  });
});

describe('an RPC we cannot use', () => {
  it('a node of another chain, an unreachable node, or none configured: 503 payment_fallback_unavailable', async () => {
    const sepolia = await startJsonRpc({ chainId: 11155111 });
    const setups = [
      siblingDeps(app.deps, { ETH_RPC_URL: sepolia.url }),
      siblingDeps(app.deps, { ETH_RPC_URL: 'http://127.0.0.1:9/' }),
      siblingDeps(app.deps, { ETH_RPC_URL: undefined }),
    ];
    extra.push(...setups);
    const from = payer();
    for (const s of setups) {
      const h = request(createApp(s));
      const r = await h.get(REPORT, fallback(`0x${'12'.repeat(32)}`, from));
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('payment_fallback_unavailable');
      await h.close();
    }
    await sepolia.close();
  });
});
