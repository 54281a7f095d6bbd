/**
 * x402 clients for tests: the official client (@x402/core x402HTTPClient + @x402/evm ExactEvmScheme
 * with a viem test account), and hand-signed EIP-3009 payloads for the rejection cases.
 */
import { randomBytes } from 'node:crypto';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader, x402HTTPClient } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { authorizationTypes } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { getAddress, type Hex, type PrivateKeyAccount } from 'viem';
import type { TestResponse } from './request.js';

export function officialClient(account: PrivateKeyAccount): x402HTTPClient {
  const core = new x402Client().register('eip155:*', new ExactEvmScheme(account));
  // Sponsored posts cost more than the client's default $1 spend cap.
  core.setSpendControls(false);
  return new x402HTTPClient(core);
}

/** Answer a 402 the way an x402 client does: read PAYMENT-REQUIRED, sign, return the retry headers. */
export async function payFor(client: x402HTTPClient, res: TestResponse): Promise<Record<string, string>> {
  const required = client.getPaymentRequiredResponse((n) => res.headers.get(n), res.body);
  const payload = await client.createPaymentPayload(required);
  return client.encodePaymentSignatureHeader(payload);
}

export function requiredOf(res: TestResponse) {
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

export function paymentResponseOf(res: TestResponse) {
  return decodePaymentResponseHeader(res.headers.get('payment-response')!);
}

interface SignOptions {
  value?: bigint;
  to?: Hex;
  validAfter?: bigint;
  validBefore?: bigint;
  nonce?: Hex;
  /** Sign under another chain id than the requirement's (a signature for the wrong network). */
  chainId?: number;
  /** Claim another `from` than the signer (a forged authorization). */
  from?: Hex;
  accepted?: Partial<PaymentRequirements>;
  x402Version?: number;
}

/** A PAYMENT-SIGNATURE header for `req`, signed by `account`, with any field overridden. */
export async function signedHeader(account: PrivateKeyAccount, req: PaymentRequirements, o: SignOptions = {}): Promise<string> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: getAddress(o.from ?? account.address),
    to: getAddress(o.to ?? req.payTo),
    value: o.value ?? BigInt(req.amount),
    validAfter: o.validAfter ?? now - 600n,
    validBefore: o.validBefore ?? now + 300n,
    nonce: o.nonce ?? (`0x${randomBytes(32).toString('hex')}` as Hex),
  };
  const signature = await account.signTypedData({
    domain: { name: String(req.extra.name), version: String(req.extra.version), chainId: o.chainId ?? Number(req.network.split(':')[1]), verifyingContract: getAddress(req.asset) },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  return encodePaymentSignatureHeader({
    x402Version: o.x402Version ?? 2,
    accepted: { ...req, ...o.accepted },
    payload: {
      authorization: {
        ...authorization,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
      },
      signature,
    },
  } as never);
}

/** The config env of an app taking x402 payments to `payTo` on Base Sepolia through the facilitator at `facilitatorUrl`. */
export function x402TestEnv(payTo: string, facilitatorUrl: string): Record<string, string> {
  return { X402_PAY_TO: payTo, X402_NETWORK: 'eip155:84532', X402_FACILITATOR_URL: facilitatorUrl };
}
