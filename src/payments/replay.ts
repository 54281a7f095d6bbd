/**
 * Replay guard shared by every web process. Two halves:
 *  - Redis `SET key 1 NX EX ttl` claims an authorization nonce / transaction hash atomically, so two
 *    concurrent requests with the same payment (on any processes) cannot both pass;
 *  - the unique payments.replay_key in Postgres is the durable record, which outlives the Redis TTL
 *    and a Redis flush (a conflicting insert is a replay too).
 * A payer whose settlement failed is suspended for SUSPEND_S (its signatures verify locally but do
 * not pay), which bounds what an empty wallet can take before the first settlement fails.
 */
import type { Redis } from '../platform/redis.js';
import { paymentSettlingKey, paymentUsedKey, payerSuspendedKey } from '../platform/redis-keys.js';

const SUSPEND_S = 24 * 3600;
const MAX_TTL_S = 30 * 24 * 3600;

/** Replay key of an EIP-3009 authorization: nonces are unique per (token, authorizer). */
export function x402ReplayKey(network: string, asset: string, payer: string, nonce: string): string {
  return `x402:${network}:${asset.toLowerCase()}:${payer.toLowerCase()}:${nonce.toLowerCase()}`;
}

export function mainnetReplayKey(txHash: string): string {
  return `eth:1:${txHash.toLowerCase()}`;
}

export class ReplayGuard {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private usedKey(replayKey: string) {
    return paymentUsedKey(this.prefix, replayKey);
  }

  private suspendedKey(payer: string) {
    return payerSuspendedKey(this.prefix, payer);
  }

  /** One round trip: [already used (per Redis), payer suspended]. */
  async check(replayKey: string, payer: string): Promise<{ used: boolean; suspended: boolean }> {
    const [used, suspended] = await this.redis.mget(this.usedKey(replayKey), this.suspendedKey(payer));
    return { used: used !== null, suspended: suspended !== null };
  }

  /** Atomically claim; false when another request already did. */
  async claim(replayKey: string, ttlS: number): Promise<boolean> {
    const ttl = Math.max(60, Math.min(MAX_TTL_S, Math.ceil(ttlS)));
    return (await this.redis.set(this.usedKey(replayKey), '1', 'EX', ttl, 'NX')) === 'OK';
  }

  /** Give a claim back (the request failed before the payment was recorded). */
  async release(replayKey: string): Promise<void> {
    await this.redis.del(this.usedKey(replayKey));
  }

  /** One settlement attempt at a time per recorded payment on the request path (retries of one payment). */
  async lockSettlement(paymentId: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(paymentSettlingKey(this.prefix, paymentId), '1', 'PX', Math.max(1000, Math.ceil(ttlMs)), 'NX')) === 'OK';
  }

  async unlockSettlement(paymentId: string): Promise<void> {
    await this.redis.del(paymentSettlingKey(this.prefix, paymentId));
  }

  async suspend(payer: string, seconds = SUSPEND_S): Promise<void> {
    await this.redis.set(this.suspendedKey(payer), '1', 'EX', seconds);
  }
}
