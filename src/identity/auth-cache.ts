/**
 * A short-lived, per-process cache of the authentication lookups every request would otherwise
 * make against PostgreSQL:
 *  - API key -> key (id, tier, revoked) and its linked user (id, address, roles), by key hash;
 *  - user id -> roles (the auth-level check of editor/staff/user routes);
 *  - verified access tokens -> their claims, until the token's own expiry (verification is a pure
 *    function of the secret, the token and the clock, so this changes no decision).
 *
 * Invalidation: the auth_generation row (db/migrations/20261125T170000_feed_filters.ts) moves in
 * the same transaction as every revocation, rotation, tier change or relink of a key and every
 * role change or deletion of a user, whoever makes it (the API, the CLI, plain SQL), through
 * triggers. A process trusts its cached entries only while it has confirmed the generation within
 * the last AUTH_GEN_CHECK_MS; the first request after that re-reads it (one tiny primary-key read,
 * shared by concurrent requests) and a moved generation drops every entry. So a revoked key or a
 * removed role stops working in every web process within AUTH_GEN_CHECK_MS (+ one query), and an
 * entry lives at most AUTH_CACHE_TTL_MS even if nothing moves. If the generation cannot be read,
 * nothing is served from the cache (every lookup goes to the database, as before).
 */
import type { Role } from './tokens.js';
import type { Tier } from './api-keys.js';
import { verifyAccessToken, type AccessClaims } from './tokens.js';
import type { Db } from '../platform/db.js';
import { authGeneration, findApiKeyWithUser } from './api-key-queries.js';
import { userRoles } from './users-queries.js';

const AUTH_CACHE_TTL_MS = 10_000;
const AUTH_GEN_CHECK_MS = 200;
const MAX_ENTRIES = 10_000;

interface KeyLookup {
  id: string;
  tier: Tier;
  revoked_at: Date | null;
  user: { id: number; wallet_address: string; roles: string[] } | null;
}

interface Kept<T> {
  value: T;
  gen: string;
  expiresAt: number;
}

class Bounded<K, V> extends Map<K, V> {
  override set(k: K, v: V): this {
    this.delete(k);
    super.set(k, v);
    if (this.size > MAX_ENTRIES) this.delete(this.keys().next().value!);
    return this;
  }
}

export class AuthCache {
  private gen: string | null = null;
  private checkedAt = 0;
  private checking: Promise<string | null> | null = null;
  private readonly keys = new Bounded<string, Kept<KeyLookup>>();
  private readonly roleMap = new Bounded<number, Kept<Role[]>>();
  private readonly tokens = new Bounded<string, { claims: AccessClaims; expiresAtMs: number }>();

  constructor(
    private readonly db: Db,
    private opts: { ttlMs?: number; checkMs?: number } = {},
  ) {}

  setOptions(opts: { ttlMs?: number; checkMs?: number }): void {
    this.opts = { ...this.opts, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) };
  }

  /** Whether the generation is known and was confirmed within the check interval (kept entries of it may be served). */
  private confirmed(): boolean {
    return this.gen !== null && Date.now() - this.checkedAt < (this.opts.checkMs ?? AUTH_GEN_CHECK_MS);
  }

  /** The current generation, confirmed within the check interval; null when it cannot be read (cache bypassed). */
  private async generation(): Promise<string | null> {
    if (this.confirmed()) return this.gen;
    if (!this.checking) {
      const issuedAt = Date.now();
      this.checking = authGeneration(this.db)
        .then(
          (r) => {
            const g = r ?? null;
            if (g !== this.gen) {
              this.keys.clear();
              this.roleMap.clear();
            }
            this.gen = g;
            this.checkedAt = issuedAt;
            return g;
          },
          () => {
            this.gen = null;
            this.keys.clear();
            this.roleMap.clear();
            return null;
          },
        )
        .finally(() => {
          this.checking = null;
        });
    }
    return this.checking;
  }

  private async cached<K, T>(map: Bounded<K, Kept<T>>, key: K, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const gen = await this.generation();
    const now = Date.now();
    if (gen !== null) {
      const hit = map.get(key);
      if (hit && hit.gen === gen && hit.expiresAt > now) return hit.value;
    }
    // The generation was read before this lookup: a change committed after it moves the
    // generation, which the next check sees and which then drops this entry.
    const value = await load();
    if (gen !== null && value !== undefined && gen === this.gen) map.set(key, { value, gen, expiresAt: now + (this.opts.ttlMs ?? AUTH_CACHE_TTL_MS) });
    return value;
  }

  /** What apiKey(hash) would answer, when it can answer from the cache alone; undefined when it would need the database (a check of the generation or the key's row). */
  apiKeyKept(hash: string): KeyLookup | undefined {
    if (!this.confirmed()) return undefined;
    const hit = this.keys.get(hash);
    return hit && hit.gen === this.gen && hit.expiresAt > Date.now() ? hit.value : undefined;
  }

  /** The claims of this token as verifyAccessToken verified them before, while it has not expired; undefined otherwise. */
  claimsKept(token: string): AccessClaims | undefined {
    const hit = this.tokens.get(token);
    return hit && hit.expiresAtMs > Date.now() ? hit.claims : undefined;
  }

  /** The API key with this hash and its linked user (undefined: no such key). Not-found answers are not kept. */
  apiKey(hash: string): Promise<KeyLookup | undefined> {
    return this.cached(this.keys, hash, async () => {
      const r = await findApiKeyWithUser(this.db, hash);
      if (!r) return undefined;
      return {
        id: r.id,
        tier: r.tier,
        revoked_at: r.revoked_at,
        user: r.user_id !== null && r.wallet_address !== null ? { id: r.user_id, wallet_address: r.wallet_address, roles: r.roles ?? [] } : null,
      };
    });
  }

  /** The user's roles; null when the account does not exist (not kept). */
  async roles(userId: number): Promise<Role[] | null> {
    const r = await this.cached(this.roleMap, userId, async () => {
      return (await userRoles(this.db, userId)) ?? undefined;
    });
    return r ?? null;
  }

  /** verifyAccessToken, remembered per token until the token expires (failures are not kept). */
  async verifyAccessToken(secret: string, token: string): Promise<AccessClaims> {
    const kept = this.claimsKept(token);
    if (kept) return kept;
    const claims = await verifyAccessToken(secret, token);
    this.tokens.set(token, { claims, expiresAtMs: claims.expiresAt * 1000 });
    return claims;
  }
}

const perDb = new WeakMap<Db, AuthCache>();

/**
 * The process's cache for this database handle (the authenticate and requireAuth middlewares share
 * it). `opts` given again replace the previous ones (createApp passes AUTH_CACHE_CHECK_MS).
 */
export function authCacheFor(db: Db, opts?: { ttlMs?: number; checkMs?: number }): AuthCache {
  let c = perDb.get(db);
  if (!c) perDb.set(db, (c = new AuthCache(db, opts)));
  else if (opts) c.setOptions(opts);
  return c;
}
