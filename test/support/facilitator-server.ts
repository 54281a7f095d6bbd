/**
 * A local x402 facilitator on 127.0.0.1 speaking the real protocol (GET /supported, POST /verify,
 * POST /settle with {x402Version, paymentPayload, paymentRequirements}). It checks the EIP-3009
 * signature with viem, keeps its own "chain" of used nonces and balances, and returns real-shaped
 * VerifyResponse / SettleResponse bodies. Tests script failures: the next N settles answer 500,
 * time out, or refuse.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { authorizationTypes } from '@x402/evm';
import { getAddress, verifyTypedData, type Hex } from 'viem';
import { asyncListener } from '../../src/platform/http/listener.js';

type SettleFailure = 'http500' | 'refuse' | 'hang';

interface Body {
  x402Version: number;
  paymentPayload: { accepted: { network: string }; payload: { signature: Hex; authorization: Record<string, string> } };
  paymentRequirements: { network: string; asset: string; amount: string; payTo: string; extra: { name: string; version: string } };
}

export interface FacilitatorServer {
  url: string;
  settles: Body[];
  verifies: Body[];
  /** The next `n` settle calls fail this way. */
  failNextSettles(n: number, how: SettleFailure): void;
  /** Every /settle answers after this many milliseconds (a real facilitator waits for the chain). */
  setSettleDelay(ms: number): void;
  /** Token balance of an address (default: plenty). */
  setBalance(address: string, atomic: bigint): void;
  close(): Promise<void>;
}

export async function startFacilitator(opts: { network?: string; settleDelayMs?: number } = {}): Promise<FacilitatorServer> {
  const network = opts.network ?? 'eip155:84532';
  const usedNonces = new Set<string>();
  const balances = new Map<string, bigint>();
  const failures: SettleFailure[] = [];
  const settles: Body[] = [];
  const verifies: Body[] = [];
  const signer = getAddress(`0x${randomBytes(20).toString('hex')}`);
  const hung: http.ServerResponse[] = [];
  let settleDelayMs = opts.settleDelayMs ?? 0;

  async function check(b: Body): Promise<{ isValid: boolean; invalidReason?: string; payer?: string }> {
    const a = b.paymentPayload.payload.authorization;
    const req = b.paymentRequirements;
    const payer = getAddress(a.from);
    let ok = false;
    try {
      ok = await verifyTypedData({
        address: payer,
        domain: { name: req.extra.name, version: req.extra.version, chainId: Number(req.network.split(':')[1]), verifyingContract: getAddress(req.asset) },
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message: { from: payer, to: getAddress(a.to), value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore), nonce: a.nonce as Hex },
        signature: b.paymentPayload.payload.signature,
      });
    } catch {
      ok = false;
    }
    if (!ok) return { isValid: false, invalidReason: 'invalid_exact_evm_signature', payer };
    if (getAddress(a.to) !== getAddress(req.payTo)) return { isValid: false, invalidReason: 'invalid_exact_evm_recipient_mismatch', payer };
    if (BigInt(a.validBefore) < BigInt(Math.floor(Date.now() / 1000) + 6)) return { isValid: false, invalidReason: 'invalid_exact_evm_payload_authorization_valid_before', payer };
    if (usedNonces.has(`${payer}:${a.nonce}`)) return { isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used', payer };
    const balance = balances.get(payer) ?? 10n ** 12n;
    if (balance < BigInt(a.value)) return { isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance', payer };
    return { isValid: true, payer };
  }

  const server = http.createServer(
    asyncListener(async (req, res) => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const path = (req.url ?? '').replace(/\/+$/, '');
      if (req.method === 'GET' && path === '/supported') {
        return send(200, { kinds: [{ x402Version: 2, scheme: 'exact', network }], extensions: [], signers: { 'eip155:*': [signer] } });
      }
      let body: Body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: 'invalid JSON' });
      }
      if (req.method === 'POST' && path === '/verify') {
        verifies.push(body);
        return send(200, await check(body));
      }
      if (req.method === 'POST' && path === '/settle') {
        settles.push(body);
        // The fake's configured settlement latency (real time: the service's own time-outs run against it).
        if (settleDelayMs > 0) await new Promise((r) => setTimeout(r, settleDelayMs));
        const failure = failures.shift();
        if (failure === 'http500') return send(500, { error: 'internal error' });
        if (failure === 'hang') {
          hung.push(res);
          return;
        }
        const v =
          failure === 'refuse'
            ? { isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance', payer: body.paymentPayload.payload.authorization.from }
            : await check(body);
        if (!v.isValid) return send(400, { success: false, errorReason: v.invalidReason, payer: v.payer, transaction: '', network: body.paymentRequirements.network });
        const a = body.paymentPayload.payload.authorization;
        usedNonces.add(`${getAddress(a.from)}:${a.nonce}`);
        return send(200, { success: true, payer: v.payer, transaction: `0x${randomBytes(32).toString('hex')}`, network: body.paymentRequirements.network });
      }
      send(404, { error: 'not found' });
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    settles,
    verifies,
    failNextSettles(n, how) {
      for (let i = 0; i < n; i++) failures.push(how);
    },
    setSettleDelay(ms) {
      settleDelayMs = ms;
    },
    setBalance(address, atomic) {
      balances.set(getAddress(address), atomic);
    },
    close: () =>
      new Promise<void>((r) => {
        for (const h of hung) h.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
