import { httpStatusOf } from '../../src/platform/errors/index.js';
import fc from '../support/property.js';
import { authorizationTypes } from '@x402/evm';
import type { PaymentRequirements } from '@x402/core/types';
import { getAddress, hashTypedData, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { PaymentRejection } from '../../src/payments/errors.js';
import { transferWithAuthorizationDigest, verifyExactPayment } from '../../src/payments/x402-verify.js';
import { signedHeader } from '../support/x402.js';

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex);
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });

const req: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  amount: '250000',
  payTo: '0x1000000000000000000000000000000000000001',
  maxTimeoutSeconds: 300,
  extra: { name: 'USDC', version: '2' },
};

describe('EIP-3009 digest', () => {
  it("equals viem's hashTypedData with @x402/evm's authorizationTypes for any authorization and domain", () => {
    fc.assert(
      fc.property(
        hex(20),
        hex(20),
        uint256,
        uint256,
        uint256,
        hex(32),
        fc.record({ name: fc.string({ maxLength: 20 }), version: fc.string({ maxLength: 5 }), chainId: fc.integer({ min: 1, max: 2 ** 31 }), verifyingContract: hex(20) }),
        (from, to, value, validAfter, validBefore, nonce, d) => {
          const domain = { ...d, verifyingContract: getAddress(d.verifyingContract) };
          const message = { from: getAddress(from), to: getAddress(to), value, validAfter, validBefore, nonce };
          expect(transferWithAuthorizationDigest(domain, message)).toBe(hashTypedData({ domain, types: authorizationTypes, primaryType: 'TransferWithAuthorization', message }));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('verifyExactPayment', () => {
  it('accepts a payment signed for the requirements and returns the payer and nonce', async () => {
    const acct = privateKeyToAccount(generatePrivateKey());
    const v = await verifyExactPayment(await signedHeader(acct, req), req);
    expect(v.payer).toBe(acct.address);
    expect(v.value).toBe(250_000n);
    expect(v.nonce).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('refuses the high-s twin of a valid signature (the token would refuse it on chain)', async () => {
    const acct = privateKeyToAccount(generatePrivateKey());
    const header = await signedHeader(acct, req);
    const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    const sig: string = payload.payload.signature;
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt(`0x${sig.slice(66, 130)}`);
    const v = parseInt(sig.slice(130), 16);
    payload.payload.signature = `${sig.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
    const twin = Buffer.from(JSON.stringify(payload)).toString('base64');
    await expect(verifyExactPayment(twin, req)).rejects.toMatchObject({ code: 'payment_invalid_signature' });
  });

  it('any header string is either accepted or refused with a PaymentRejection: 400 when malformed, else 402 (never another error)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.base64String(),
          fc.json().map((j) => Buffer.from(j).toString('base64')),
        ),
        async (h) => {
          try {
            await verifyExactPayment(h, req);
          } catch (err) {
            expect(err).toBeInstanceOf(PaymentRejection);
            // Malformed (undecodable, wrong shape) is 400 per the x402 v2 HTTP transport; a well-formed payment that fails is 402.
            const rej = err as PaymentRejection;
            expect(httpStatusOf(rej)).toBe(rej.code === 'payment_invalid_encoding' ? 400 : 402);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
