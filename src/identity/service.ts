/**
 * Identity use cases: signing in with a wallet, refreshing and ending a session, creating, rotating
 * and revoking an API key, granting and revoking roles. The routes and the admin CLI call these; the
 * query files hold the SQL, taking the transaction these functions open.
 */
import { randomBytes } from 'node:crypto';
import { recoverMessageAddress, verifyMessage } from 'viem';
import type { AppDeps } from '../platform/deps.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { insertApiKey, recentSignups, revokeApiKey, rotateApiKey } from './api-key-queries.js';
import { generateApiKey, generateKeyId } from './api-keys.js';
import { insertFingerprint } from './fingerprint-queries.js';
import { fingerprintOf } from './fingerprints.js';
import { consumeNonce, readNonce } from './nonce.js';
import { insertRefreshToken, lockRefreshToken, markRefreshTokenUsed, revokeFamily } from './refresh-token-queries.js';
import { REFRESH_TOKEN_TTL_S, type Role, signAccessToken, signRefreshToken, TokenError, verifyRefreshToken } from './tokens.js';
import { appendRole, getUserById, insertUserIfAbsent, lockUserRoles, removeRole, upsertUserOnSignIn, type UserRow } from './users-queries.js';

type User = NonNullable<UserRow>;

interface Session {
  user: User;
  access: string;
  refresh: string;
}

/** A new access token and a new refresh token of `family` (a new family when none), the refresh token stored. */
async function issueSession(deps: AppDeps, user: User, family?: string): Promise<Session> {
  const access = await signAccessToken(deps.config.JWT_SECRET, { userId: user.id, address: user.wallet_address, roles: user.roles as Role[] });
  const fam = family ?? randomBytes(16).toString('base64url');
  const id = randomBytes(16).toString('base64url');
  const refresh = await signRefreshToken(deps.config.JWT_SECRET, { userId: user.id, family: fam, id });
  await insertRefreshToken(deps.db, { id, family: fam, userId: user.id, expiresAt: new Date(Date.now() + REFRESH_TOKEN_TTL_S * 1000) });
  return { user, access, refresh };
}

/**
 * Sign in with a personal_sign signature over the message issued with `nonce`: the nonce must be
 * live and issued to this address, the signature over the message (a signature over the bare nonce
 * is told apart: signature_over_nonce), and the nonce is spent once. The user is created on first
 * sign-in. With the client, its hashed fingerprint is recorded (src/identity/fingerprints.ts).
 */
export async function signIn(
  deps: AppDeps,
  input: { address: string; signature: string; nonce: string },
  client?: { ip: string; userAgent: string | undefined },
): Promise<Session> {
  const prefix = deps.config.QUEUE_PREFIX;
  const rec = await readNonce(deps.redis, prefix, input.nonce, input.address);
  if (typeof rec === 'string') throw new DomainError(rec);
  const signature = input.signature as `0x${string}`;
  const ok = await verifyMessage({ address: input.address as `0x${string}`, message: rec.message, signature }).catch(() => false);
  if (!ok) {
    const overNonce = await recoverMessageAddress({ message: input.nonce, signature }).then(
      (a) => a.toLowerCase() === input.address.toLowerCase(),
      () => false,
    );
    throw new DomainError(overNonce ? 'signature_over_nonce' : 'signature_invalid');
  }
  if (!(await consumeNonce(deps.redis, prefix, input.nonce))) throw new DomainError('nonce_used');
  const user = await upsertUserOnSignIn(deps.db, input.address);
  if (client) await insertFingerprint(deps.db, fingerprintOf(deps.config.JWT_SECRET, { id: user.id, via: 'wallet' }, client));
  return issueSession(deps, user);
}

type SpendResult = 'ok' | 'reused' | 'revoked' | 'unknown';

/**
 * Spend a refresh token exactly once. A token that was already spent (or loses a race to be spent)
 * is a replay: the whole family is revoked, which logs out whoever holds the newer tokens too.
 */
async function spendRefreshToken(db: Db, id: string, userId: number): Promise<SpendResult> {
  return db.transaction().execute(async (trx) => {
    const row = await lockRefreshToken(trx, id, userId);
    if (!row) return 'unknown';
    if (row.revoked_at) return 'revoked';
    if (row.used_at) {
      await revokeFamily(trx, row.family);
      return 'reused';
    }
    await markRefreshTokenUsed(trx, id);
    return 'ok';
  });
}

/**
 * A new session of the refresh token's family for the refresh token, spent once. Presenting a spent
 * token revokes its family: refresh_token_reused (the caller clears its cookies).
 */
export async function refreshSession(deps: AppDeps, token: string): Promise<Session> {
  let claims;
  try {
    claims = await verifyRefreshToken(deps.config.JWT_SECRET, token);
  } catch (err) {
    const code = err instanceof TokenError && err.code === 'token_expired' ? 'refresh_token_expired' : 'refresh_token_invalid';
    throw new DomainError(code, code === 'refresh_token_expired' ? 'refresh token expired; sign in again' : 'refresh token is invalid');
  }
  const spent = await spendRefreshToken(deps.db, claims.id, claims.userId);
  if (spent === 'reused') throw new DomainError('refresh_token_reused', 'this refresh token was already used; every session of its family is revoked');
  if (spent !== 'ok') throw new DomainError(spent === 'revoked' ? 'refresh_token_revoked' : 'refresh_token_invalid', 'refresh token is no longer valid; sign in again');
  const user = await getUserById(deps.db, claims.userId);
  if (!user) throw new DomainError('account_not_found', 'the account no longer exists');
  return issueSession(deps, user, claims.family);
}

/** End the refresh token's family (a token that does not verify ends nothing). */
export async function endSession(deps: AppDeps, token: string): Promise<void> {
  const claims = await verifyRefreshToken(deps.config.JWT_SECRET, token).catch(() => null);
  if (claims) await revokeFamily(deps.db, claims.family);
}

/** Create a free-tier key, linked to the signed-in user when there is one; the raw key is returned once, never stored. */
export async function createApiKey(deps: AppDeps, input: { name: string; email: string | null; useCase: string | null; userId: number | null }) {
  if (input.userId !== null) await checkAccountSignups(deps, input.userId);
  const key = generateApiKey();
  const id = generateKeyId();
  await insertApiKey(deps.db, { id, hash: key.hash, first4: key.first4, last4: key.last4, ...input });
  return { id, raw: key.raw };
}

const HOUR_MS = 3600_000;

/**
 * A signed-in account signs up for at most API_KEY_SIGNUPS_PER_HOUR keys an hour (the per-address
 * limit on the route covers everyone; this one holds when an account moves between addresses).
 */
async function checkAccountSignups(deps: AppDeps, userId: number): Promise<void> {
  const limit = deps.config.API_KEY_SIGNUPS_PER_HOUR;
  const now = Date.now();
  const { n, oldest } = await recentSignups(deps.db, userId, new Date(now - HOUR_MS));
  if (n < limit) return;
  const retryS = Math.max(1, Math.ceil(((oldest?.getTime() ?? now) + HOUR_MS - now) / 1000));
  throw new DomainError(
    'rate_limited',
    `this account signed up for ${limit} API keys in the last hour; retry in ${retryS} s`,
    { limit, window_seconds: 3600, retry_after_seconds: retryS },
    { headers: { 'Retry-After': String(retryS) } },
  );
}

/** A new secret for a live key (same id, tier and usage); api_key_revoked when the key was revoked. Returns the raw key, once. */
export async function rotateKey(deps: AppDeps, keyId: string): Promise<string> {
  const fresh = generateApiKey();
  const row = await rotateApiKey(deps.db, keyId, fresh);
  if (!row) throw new DomainError('api_key_revoked', 'API key has been revoked');
  return fresh.raw;
}

export async function revokeKey(deps: AppDeps, keyId: string): Promise<void> {
  await revokeApiKey(deps.db, keyId);
}

interface RoleChange {
  userId: number;
  created: boolean;
  changed: boolean;
  roles: string[];
}

/** Grant a role; an address with no user yet gets a user row (it signs in to that account later). */
export async function grantRole(db: Db, address: string, role: Role): Promise<RoleChange> {
  return db.transaction().execute(async (trx) => {
    let user = await lockUserRoles(trx, address);
    let created = false;
    if (!user) {
      // ON CONFLICT: a user signing in at this moment may create the row first; then use theirs.
      user = await insertUserIfAbsent(trx, address);
      created = !!user;
      user ??= await lockUserRoles(trx, address);
      if (!user) throw new Error(`user ${address} vanished while granting a role`);
    }
    if (user.roles.includes(role)) return { userId: user.id, created, changed: false, roles: user.roles };
    return { userId: user.id, created, changed: true, roles: await appendRole(trx, user.id, role) };
  });
}

/** Revoke a role; null when no user has that address. */
export async function revokeRole(db: Db, address: string, role: Role): Promise<RoleChange | null> {
  return db.transaction().execute(async (trx) => {
    const user = await lockUserRoles(trx, address);
    if (!user) return null;
    if (!user.roles.includes(role)) return { userId: user.id, created: false, changed: false, roles: user.roles };
    return { userId: user.id, created: false, changed: true, roles: await removeRole(trx, user.id, role) };
  });
}
