/**
 * Sign-in nonces, held in Redis so every web process sees the same set. A nonce is issued for one
 * address together with the exact EIP-4361 (Sign-In with Ethereum) message the wallet must sign,
 * is valid for one hour, and is consumed atomically (Lua) so two racing verify calls cannot both
 * succeed. Records outlive their validity by an hour so that "expired" can be told from "unknown".
 */
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import type { Redis } from '../platform/redis.js';
import { nonceKey as key } from '../platform/redis-keys.js';

const NONCE_TTL_S = 3600;
const RECORD_TTL_S = 2 * NONCE_TTL_S;
const SIWE_STATEMENT = 'Sign in to Squid News. This request will not trigger a blockchain transaction or cost any gas.';

interface NonceRecord {
  address: string; // lower-case
  message: string;
  expiresAt: number; // epoch ms
  used?: boolean;
}

type NonceProblem = 'nonce_unknown' | 'nonce_expired' | 'nonce_used' | 'nonce_address_mismatch';

// Marks the record used if it is not already: returns 1 when this call consumed it, 0 when used, -1 when gone.
const CONSUME = `
local v = redis.call('GET', KEYS[1])
if not v then return -1 end
local r = cjson.decode(v)
if r.used then return 0 end
r.used = true
redis.call('SET', KEYS[1], cjson.encode(r), 'KEEPTTL')
return 1`;

function buildSignInMessage(opts: { baseUrl: string; address: string; nonce: string; issuedAt: Date; chainId: number }): string {
  const u = new URL(opts.baseUrl);
  return createSiweMessage({
    domain: u.host,
    address: getAddress(opts.address),
    statement: SIWE_STATEMENT,
    uri: u.origin,
    version: '1',
    chainId: opts.chainId,
    nonce: opts.nonce,
    issuedAt: opts.issuedAt,
    expirationTime: new Date(opts.issuedAt.getTime() + NONCE_TTL_S * 1000),
  });
}

export async function issueNonce(redis: Redis, prefix: string, opts: { baseUrl: string; address: string; chainId: number; now?: Date }) {
  const nonce = randomBytes(16).toString('hex');
  const issuedAt = opts.now ?? new Date();
  const message = buildSignInMessage({ baseUrl: opts.baseUrl, address: opts.address, nonce, issuedAt, chainId: opts.chainId });
  const record: NonceRecord = { address: opts.address.toLowerCase(), message, expiresAt: issuedAt.getTime() + NONCE_TTL_S * 1000 };
  await redis.set(key(prefix, nonce), JSON.stringify(record), 'EX', RECORD_TTL_S);
  return { nonce, message };
}

/** Look a nonce up for an address without consuming it. */
export async function readNonce(redis: Redis, prefix: string, nonce: string, address: string, now = Date.now()): Promise<NonceRecord | NonceProblem> {
  const raw = await redis.get(key(prefix, nonce));
  if (!raw) return 'nonce_unknown';
  const rec = JSON.parse(raw) as NonceRecord;
  if (rec.used) return 'nonce_used';
  if (rec.address !== address.toLowerCase()) return 'nonce_address_mismatch';
  if (now > rec.expiresAt) return 'nonce_expired';
  return rec;
}

/** Consume a nonce once the signature checked out; false when another call got there first. */
export async function consumeNonce(redis: Redis, prefix: string, nonce: string): Promise<boolean> {
  const r = (await redis.eval(CONSUME, 1, key(prefix, nonce))) as number;
  return r === 1;
}
