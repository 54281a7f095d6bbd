/**
 * Local verification of an x402 v2 `exact` EVM payment (EIP-3009 transferWithAuthorization), with
 * no RPC: the checks of @x402/evm's facilitator that need no chain access, in the same terms.
 *   1. PAYMENT-SIGNATURE is base64 of JSON: {x402Version: 2, accepted, payload: {authorization, signature}}
 *   2. accepted matches what we offered (scheme exact, network, asset, payTo, amount)
 *   3. authorization.to = payTo and authorization.value = amount (exact scheme: equal, not "at least")
 *   4. validAfter <= now < validBefore - 6 s (the facilitator's margin for getting the transfer mined)
 *   5. the EIP-712 signature over TransferWithAuthorization, under the token's domain (name, version,
 *      chainId, verifyingContract = asset) taken from OUR requirements, recovers to authorization.from
 * What it cannot know without a chain (balance, whether the nonce was already used on chain, smart-
 * wallet signatures) is settled by the facilitator; X402_VERIFY_MODE=facilitator asks /verify first.
 */
import { decodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { getAddress, getTypesForEIP712Domain, hashDomain, keccak256, recoverAddress, type Address, type Hex } from 'viem';
import { z } from 'zod';
import { malformed, reject } from './errors.js';
import { chainIdOf, SCHEME, X402_VERSION } from './requirements.js';

/** Largest PAYMENT-SIGNATURE header we decode (a real one is ~1.2 KB). */
const MAX_PAYMENT_HEADER_LENGTH = 16 * 1024;
/** validBefore must be at least this far ahead (same margin as @x402/evm's facilitator). */
const VALID_BEFORE_MARGIN_S = 6;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const uint = z.string().regex(/^\d{1,78}$/);

const payloadSchema = z.object({
  x402Version: z.number().int(),
  accepted: z.object({
    scheme: z.string(),
    network: z.string(),
    asset: z.string(),
    amount: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number().optional(),
    extra: z.record(z.string(), z.unknown()).optional(),
  }),
  payload: z.object({
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
    authorization: z.object({
      from: address,
      to: address,
      value: uint,
      validAfter: uint,
      validBefore: uint,
      nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
    }),
  }),
  resource: z.unknown().optional(),
  extensions: z.unknown().optional(),
});

/** keccak256 of the EIP-712 type string, as in EIP-3009 (and @x402/evm's authorizationTypes). */
const TRANSFER_WITH_AUTHORIZATION_TYPEHASH = Buffer.from(
  keccak256(new TextEncoder().encode('TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)')).slice(2),
  'hex',
);
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

const domainSeparators = new Map<string, Buffer>();
function domainSeparator(d: { name: string; version: string; chainId: number; verifyingContract: Address }): Buffer {
  const key = `${d.chainId}:${d.verifyingContract}:${d.name}:${d.version}`;
  let sep = domainSeparators.get(key);
  if (!sep) {
    sep = Buffer.from(hashDomain({ domain: d, types: { EIP712Domain: getTypesForEIP712Domain({ domain: d }) } } as Parameters<typeof hashDomain>[0]).slice(2), 'hex');
    domainSeparators.set(key, sep);
  }
  return sep;
}

const word = (hex: string) => Buffer.from(hex.replace(/^0x/, '').padStart(64, '0'), 'hex');

/**
 * The EIP-712 digest of TransferWithAuthorization, the same bytes as viem's hashTypedData with
 * @x402/evm's authorizationTypes (a unit test keeps them equal), without its generic encoder: the
 * domain separator is computed once per token and the struct is seven 32-byte words.
 */
export function transferWithAuthorizationDigest(
  domain: { name: string; version: string; chainId: number; verifyingContract: Address },
  m: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex },
): Hex {
  const struct = Buffer.concat([
    TRANSFER_WITH_AUTHORIZATION_TYPEHASH,
    word(m.from),
    word(m.to),
    word(m.value.toString(16)),
    word(m.validAfter.toString(16)),
    word(m.validBefore.toString(16)),
    word(m.nonce),
  ]);
  return keccak256(Buffer.concat([Buffer.from([0x19, 0x01]), domainSeparator(domain), keccak256(struct, 'bytes')]));
}

export interface VerifiedAuthorization {
  payer: Address;
  payTo: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  /** The decoded payload as received (settled later through the facilitator). */
  paymentPayload: PaymentPayload;
}

/** Step 1: decode and shape-check the header. */
function decodePaymentHeader(header: string): { payload: PaymentPayload; parsed: Parsed } {
  const bad = (why: string) => malformed(`PAYMENT-SIGNATURE ${why}`, { header: 'PAYMENT-SIGNATURE' });
  if (header.length > MAX_PAYMENT_HEADER_LENGTH) throw bad(`is longer than ${MAX_PAYMENT_HEADER_LENGTH} characters`);
  let raw: unknown;
  try {
    raw = decodePaymentSignatureHeader(header.trim());
  } catch {
    throw bad('is not base64-encoded JSON');
  }
  const r = payloadSchema.safeParse(raw);
  if (!r.success) {
    const where = r.error.issues.map((i) => i.path.join('.') || '(root)');
    throw malformed(`PAYMENT-SIGNATURE is not an x402 v2 exact EIP-3009 payment payload (bad: ${[...new Set(where)].join(', ')})`, {
      header: 'PAYMENT-SIGNATURE',
      fields: [...new Set(where)],
    });
  }
  return { payload: raw as PaymentPayload, parsed: r.data };
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

type Parsed = z.infer<typeof payloadSchema>;
type Authorization = Parsed['payload']['authorization'];

/** Steps 2-3: what the payment accepted and authorizes is exactly what was offered. */
function checkRequirements(parsed: Parsed, req: PaymentRequirements): void {
  const acc = parsed.accepted;
  const auth = parsed.payload.authorization;
  if (parsed.x402Version !== X402_VERSION) {
    throw reject('payment_requirements_mismatch', `x402Version ${parsed.x402Version} is not supported; use ${X402_VERSION}`, 'invalid_x402_version');
  }
  if (acc.scheme !== SCHEME) throw reject('payment_requirements_mismatch', `scheme "${acc.scheme}" is not offered; use "${SCHEME}"`, 'invalid_exact_evm_scheme');
  if (acc.network !== req.network) {
    throw reject('payment_requirements_mismatch', `network ${acc.network} is not offered; pay on ${req.network}`, 'invalid_exact_evm_network_mismatch');
  }
  if (!same(acc.asset, req.asset)) throw reject('payment_requirements_mismatch', `asset ${acc.asset} is not offered; pay in ${req.asset}`, 'invalid_exact_evm_asset_mismatch');
  if (!same(acc.payTo, req.payTo) || !same(auth.to, req.payTo)) {
    throw reject('payment_wrong_recipient', `the authorization pays ${auth.to}; it must pay ${req.payTo}`, 'invalid_exact_evm_recipient_mismatch', {
      expected: req.payTo,
      got: auth.to,
    });
  }
  if (acc.amount !== req.amount || BigInt(auth.value) !== BigInt(req.amount)) {
    throw reject(
      'payment_wrong_amount',
      `the authorization is for ${auth.value} atomic units; the price is exactly ${req.amount}`,
      'invalid_exact_evm_payload_authorization_value_mismatch',
      {
        expected: req.amount,
        got: auth.value,
      },
    );
  }
}

/** Step 4: the authorization's validity window holds `nowS`. */
function checkWindow(auth: Authorization, nowS: number): void {
  const validAfter = BigInt(auth.validAfter);
  const validBefore = BigInt(auth.validBefore);
  if (validBefore < BigInt(nowS + VALID_BEFORE_MARGIN_S)) {
    throw reject(
      'payment_expired',
      `the authorization expired (validBefore ${auth.validBefore}, now ${nowS}); sign a new one`,
      'invalid_exact_evm_payload_authorization_valid_before',
      {
        valid_before: Number(validBefore),
        now: nowS,
      },
    );
  }
  if (validAfter > BigInt(nowS)) {
    throw reject('payment_not_yet_valid', `the authorization is valid only after ${auth.validAfter} (now ${nowS})`, 'invalid_exact_evm_payload_authorization_valid_after', {
      valid_after: Number(validAfter),
      now: nowS,
    });
  }
}

/** Step 5: the signature is the payer's TransferWithAuthorization under the token's domain. */
async function checkSignature(parsed: Parsed, req: PaymentRequirements): Promise<void> {
  const auth = parsed.payload.authorization;
  const name = String(req.extra.name);
  const version = String(req.extra.version);
  let ok = false;
  try {
    const signature = parsed.payload.signature as Hex;
    // 65-byte r || s || v with a low s (the token's ecrecover refuses high-s signatures on chain).
    if (signature.length === 132 && BigInt(`0x${signature.slice(66, 130)}`) <= SECP256K1_HALF_N) {
      const digest = transferWithAuthorizationDigest(
        { name, version, chainId: chainIdOf(req.network), verifyingContract: getAddress(req.asset) },
        {
          from: getAddress(auth.from),
          to: getAddress(auth.to),
          value: BigInt(auth.value),
          validAfter: BigInt(auth.validAfter),
          validBefore: BigInt(auth.validBefore),
          nonce: auth.nonce as Hex,
        },
      );
      ok = (await recoverAddress({ hash: digest, signature })) === getAddress(auth.from);
    }
  } catch {
    ok = false;
  }
  if (!ok) {
    throw reject(
      'payment_invalid_signature',
      `the signature is not a TransferWithAuthorization by ${auth.from} under the ${name} v${version} domain on ${req.network}`,
      'invalid_exact_evm_signature',
    );
  }
}

/**
 * Steps 2-5. Throws PaymentRejection with a distinct code per failed check. `window: false` skips
 * step 4 (the retry of a payment already recorded, whose authorization may have expired since).
 */
export async function verifyExactPayment(
  header: string,
  req: PaymentRequirements,
  nowS: number = Math.floor(Date.now() / 1000),
  opts: { window?: boolean } = {},
): Promise<VerifiedAuthorization> {
  const { payload, parsed } = decodePaymentHeader(header);
  const auth = parsed.payload.authorization;
  checkRequirements(parsed, req);
  if (opts.window !== false) checkWindow(auth, nowS);
  await checkSignature(parsed, req);
  return {
    payer: getAddress(auth.from),
    payTo: getAddress(auth.to),
    value: BigInt(auth.value),
    validAfter: BigInt(auth.validAfter),
    validBefore: BigInt(auth.validBefore),
    nonce: auth.nonce.toLowerCase() as Hex,
    paymentPayload: payload,
  };
}
