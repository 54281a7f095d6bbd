/**
 * API keys: `squid_` + 32 random bytes (base64url). Only the SHA-256 of the raw key is stored: the
 * keys carry 256 bits of entropy, so a fast hash is safe and keeps the per-request lookup cheap.
 * Dashboard ids are separate 96-bit random values.
 */
import { createHash, randomBytes } from 'node:crypto';

export { tierDailyQuota, tiers, type Tier } from '../platform/http/quota-tiers.js';

const API_KEY_PREFIX = 'squid_';

export function generateApiKey(): { raw: string; hash: string; first4: string; last4: string } {
  const secret = randomBytes(32).toString('base64url');
  const raw = API_KEY_PREFIX + secret;
  return { raw, hash: hashApiKey(raw), first4: secret.slice(0, 4), last4: secret.slice(-4) };
}

export function generateKeyId(): string {
  return 'k_' + randomBytes(12).toString('base64url');
}

export function hashApiKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

export function maskKey(first4: string, last4: string): string {
  return `${API_KEY_PREFIX}${first4}${'•'.repeat(8)}${last4}`;
}
