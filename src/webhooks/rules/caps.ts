/**
 * How many webhook endpoints an owner may have. Pure.
 *
 * Endpoints belong to an account (callers signed in with a wallet, or using an API key linked to
 * their account) or to an API key that is not linked to an account. An account may have the larger
 * of its own cap and the caps of the tiers of its active API keys; an unlinked key, its tier's cap.
 * Disabled endpoints count (they can be re-enabled); delete one to make room.
 */
import type { Tier } from '../../identity/index.js';

export const WEBHOOK_ENDPOINT_CAPS = { account: 10, free: 5, builder: 50, enterprise: 1000 } as const;

type CapSubject = { kind: 'account'; keyTiers: readonly Tier[] } | { kind: 'api_key'; tier: Tier };

export function endpointCap(s: CapSubject): number {
  if (s.kind === 'api_key') return WEBHOOK_ENDPOINT_CAPS[s.tier];
  return Math.max(WEBHOOK_ENDPOINT_CAPS.account, ...s.keyTiers.map((t) => WEBHOOK_ENDPOINT_CAPS[t]));
}
