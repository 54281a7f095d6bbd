/**
 * Credentials on requests (spec: Authentication).
 *  - `Authorization: Bearer <JWT>` (agent-chat form) or `Authorization: Bearer squid_...` (API key);
 *  - cookie `access_token` (browser sessions).
 * An explicit Authorization header that fails is always 401. A stale cookie makes the caller
 * anonymous on public routes (so a browser with an old cookie can still read the feed) and is 401
 * on protected ones. Roles for editor/staff routes are read from the database, never trusted from
 * the token alone; API-key lookups and roles go through a short-lived per-process cache that every
 * revocation, rotation or role change empties in every web process within 200 ms
 * (src/identity/auth-cache.ts).
 * Cross-site-request protection: a POST/PUT/PATCH/DELETE authenticated by cookie must carry
 * `Origin: TRUSTED_ORIGIN` (or, without Origin, a Referer of that origin); otherwise 403.
 */
import type { Context, Middleware } from 'koa';
import { hashApiKey, looksLikeApiKey, type Tier } from './api-keys.js';
import { TokenError, type AccessClaims, type Role } from './tokens.js';
import type { Db } from '../platform/db.js';
import type { ErrorCode } from '../platform/errors/codes.js';
import { DomainError } from '../platform/errors/index.js';
import { authCacheFor, type AuthCache } from './auth-cache.js';
import { keyUseRecorder } from './fingerprints.js';

interface AuthUser {
  id: number;
  address: string;
  /** Roles as issued in the token; authorization decisions re-read them from the database. */
  roles: Role[];
  via: 'cookie' | 'bearer' | 'api_key';
}

interface ApiKeyPrincipal {
  id: string;
  tier: Tier;
}

declare module 'koa' {
  interface DefaultState {
    user?: AuthUser;
    apiKey?: ApiKeyPrincipal;
    /** Why cookie credentials were ignored (reported if the route needs a caller). */
    authProblem?: { code: ErrorCode; message: string };
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function tokenProblem(err: unknown): { code: ErrorCode; message: string } {
  const code = err instanceof TokenError ? err.code : 'token_invalid';
  return { code, message: code === 'token_expired' ? 'access token expired; sign in again or refresh' : 'access token is invalid' };
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

type KeyLookup = NonNullable<ReturnType<AuthCache['apiKeyKept']>>;

/** The caller of an API key: the key, and its account when it is linked to one. */
function setKeyCaller(state: { apiKey?: ApiKeyPrincipal; user?: AuthUser }, key: KeyLookup): void {
  state.apiKey = { id: key.id, tier: key.tier };
  const u = key.user;
  if (u) state.user = { id: u.id, address: u.wallet_address, roles: u.roles as Role[], via: 'api_key' };
}

const userOf = (c: AccessClaims, via: 'cookie' | 'bearer'): AuthUser => ({ id: c.userId, address: c.address, roles: c.roles, via });

/** Who a request is: the state authenticate() sets (ctx.state.user / ctx.state.apiKey). */
export interface Principal {
  user?: AuthUser;
  apiKey?: ApiKeyPrincipal;
}

/**
 * The caller named by an Authorization header: an API key (and its account, when linked) or a
 * bearer access token. A header that fails is a 401 DomainError (authorization_malformed,
 * api_key_invalid, api_key_revoked, token_expired, token_invalid). No header: anonymous.
 */
export function authorizationAuthenticator(deps: { db: Db; secret: string; authCacheCheckMs?: number }): (header: string | undefined) => Promise<Principal> {
  const cache = authCacheFor(deps.db, { checkMs: deps.authCacheCheckMs });
  return async (header) => {
    const out: Principal = {};
    if (!header) return out;
    const m = BEARER.exec(header);
    if (!m) throw new DomainError('authorization_malformed', 'Authorization must be "Bearer <token>"');
    const token = m[1];
    if (looksLikeApiKey(token)) {
      const key = await cache.apiKey(hashApiKey(token));
      if (!key) throw new DomainError('api_key_invalid', 'API key is not valid');
      if (key.revoked_at) throw new DomainError('api_key_revoked', 'API key has been revoked');
      setKeyCaller(out, key);
      return out;
    }
    try {
      out.user = userOf(await cache.verifyAccessToken(deps.secret, token), 'bearer');
    } catch (err) {
      const p = tokenProblem(err);
      throw new DomainError(p.code, p.message);
    }
    return out;
  };
}

export function authenticate(deps: { db: Db; secret: string; authCacheCheckMs?: number }): Middleware {
  const cache = authCacheFor(deps.db, { checkMs: deps.authCacheCheckMs });
  const fromHeader = authorizationAuthenticator(deps);
  const recordKeyUse = keyUseRecorder(deps.db, deps.secret);
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (header) {
      Object.assign(ctx.state, await fromHeader(header));
      const { apiKey, user } = ctx.state as Principal;
      if (apiKey && user) await recordKeyUse({ id: user.id, apiKeyId: apiKey.id }, { ip: ctx.ip, userAgent: ctx.get('user-agent') || undefined });
    } else {
      const cookie = ctx.cookies.get('access_token');
      if (cookie) {
        try {
          ctx.state.user = userOf(await cache.verifyAccessToken(deps.secret, cookie), 'cookie');
        } catch (err) {
          ctx.state.authProblem = tokenProblem(err);
        }
      }
    }
    await next();
  };
}

/**
 * What authenticate() would put in ctx.state, from the auth cache alone (for the memory lane,
 * src/platform/http/lane.ts): true when the request carries no credentials or credentials the cache vouches
 * for right now (a kept, unrevoked key; a token verified before), with ctx.state set as
 * authenticate() sets it; false, state untouched, when deciding needs the database, a signature check
 * or an error answer (authenticate() then runs as usual).
 */
export function authenticateFromCache(db: Db): (ctx: Context) => boolean {
  const cache = authCacheFor(db);
  return (ctx) => {
    const header = ctx.headers.authorization;
    if (header !== undefined) {
      const token = BEARER.exec(header)?.[1];
      if (!token) return false;
      if (looksLikeApiKey(token)) {
        const key = cache.apiKeyKept(hashApiKey(token));
        if (!key || key.revoked_at) return false;
        setKeyCaller(ctx.state, key);
        return true;
      }
      const claims = cache.claimsKept(token);
      if (!claims) return false;
      ctx.state.user = userOf(claims, 'bearer');
      return true;
    }
    const cookie = ctx.headers.cookie === undefined ? undefined : ctx.cookies.get('access_token');
    if (!cookie) return true;
    const claims = cache.claimsKept(cookie);
    if (!claims) return false;
    ctx.state.user = userOf(claims, 'cookie');
    return true;
  };
}

function sameOrigin(value: string, trusted: string): boolean {
  try {
    return new URL(value).origin === trusted;
  } catch {
    return false;
  }
}

/** 403 csrf_origin_mismatch unless Origin (or, without Origin, the Referer's origin) is the trusted origin. */
export function assertSameOrigin(ctx: Context, trustedOrigin: string): void {
  const origin = ctx.get('origin');
  const referer = ctx.get('referer');
  const ok = origin ? origin === trustedOrigin : referer ? sameOrigin(referer, trustedOrigin) : false;
  if (!ok) {
    throw new DomainError('csrf_origin_mismatch', `cookie-authenticated ${ctx.method} requests must carry Origin: ${trustedOrigin} (or a same-origin Referer)`);
  }
}

export function csrfGuard(trustedOrigin: string): Middleware {
  return async (ctx, next) => {
    if (UNSAFE.has(ctx.method) && ctx.state.user?.via === 'cookie') assertSameOrigin(ctx, trustedOrigin);
    await next();
  };
}

/**
 * A RouteDef's auth level for authenticated state: 401 without a caller (account_required for an
 * API key without an account), 403 without the role. The roles are re-read (auth cache) into state.user.
 */
export function authLevelCheck(db: Db): (level: 'user' | 'editor' | 'staff', state: Principal & { authProblem?: { code: ErrorCode; message: string } }) => Promise<void> {
  const cache = authCacheFor(db);
  return async (level, state) => {
    const user = state.user;
    if (!user) {
      if (state.apiKey) throw new DomainError('account_required', 'this API key is not linked to an account; sign in with a wallet or create the key while signed in');
      const p = state.authProblem;
      throw new DomainError(p?.code ?? 'auth_required', p?.message ?? 'authentication required: send the access_token cookie or an Authorization: Bearer header');
    }
    const roles = await cache.roles(user.id);
    if (roles === null) throw new DomainError('account_not_found', 'the account of this token no longer exists; sign in again');
    user.roles = roles;
    if (level !== 'user' && !roles.includes(level)) throw new DomainError(`${level}_required`, `this action needs the ${level} role`);
  };
}

/** Enforce a RouteDef's auth level. */
export function requireAuth(level: 'user' | 'editor' | 'staff', db: Db): Middleware {
  const check = authLevelCheck(db);
  return async (ctx: Context, next) => {
    await check(level, ctx.state);
    await next();
  };
}
