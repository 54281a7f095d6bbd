/**
 * Wallet sign-in (spec: Authentication 1): nonce, verify, and the refresh and logout endpoints the
 * spec leaves out. Decisions (documented in README):
 *  - verify body: {access_token, refresh_token, token_type: "Bearer", expires_in, refresh_expires_in,
 *    authenticated: true, user: <profile>}; cookies access_token (60 min) and refresh_token (30 days,
 *    path /api/v1/wallet/), HttpOnly, SameSite=Lax, Secure when PUBLIC_BASE_URL is https.
 *  - POST /wallet/refresh/ takes the refresh token from its cookie or the body, spends it once, and
 *    returns a new pair of the same family; presenting a spent token revokes the family.
 *  - POST /wallet/logout/ revokes the refresh family and clears both cookies.
 */
import type { Context } from 'koa';
import { isAddress } from 'viem';
import { z } from 'zod';
import { issueNonce } from './nonce.js';
import { ACCESS_TOKEN_TTL_S, REFRESH_TOKEN_TTL_S } from './tokens.js';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { errorCodes } from '../platform/errors/codes.js';
import { assertSameOrigin } from './auth-middleware.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { endSession, refreshSession, signIn } from './service.js';
import { toProfile, type UserRow } from './users-queries.js';
import { profileSchema, text } from '../platform/http/schemas.js';

const address = z.string().refine((v) => isAddress(v, { strict: false }), 'must be a 0x-prefixed 20-byte hex Ethereum address');

const nonceResponse = z
  .object({
    nonce: z.string().meta({ description: 'Raw hex nonce; single use; valid 1 hour' }),
    message: z.string().meta({ description: 'EIP-4361 Sign-In with Ethereum text; sign it byte for byte with personal_sign' }),
  })
  .meta({ id: 'NonceChallenge' });

const tokensResponse = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().meta({ description: 'Access-token lifetime in seconds (3600)' }),
    refresh_expires_in: z.number().int(),
    authenticated: z.literal(true),
    user: profileSchema,
  })
  .meta({ id: 'SignInResult' });

function cookie(name: string, value: string, opts: { maxAgeS: number; path: string; secure: boolean }): string {
  return [`${name}=${encodeURIComponent(value)}`, `Path=${opts.path}`, `Max-Age=${opts.maxAgeS}`, 'HttpOnly', 'SameSite=Lax', ...(opts.secure ? ['Secure'] : [])].join('; ');
}

const REFRESH_COOKIE_PATH = '/api/v1/wallet/';

/** Set the session cookies of a new session and answer with its body (sign-in and refresh answer alike). */
function answerSession(deps: AppDeps, ctx: Context, t: { access: string; refresh: string; user: NonNullable<UserRow> }): void {
  const secure = deps.config.PUBLIC_BASE_URL.startsWith('https:');
  ctx.append('Set-Cookie', cookie('access_token', t.access, { maxAgeS: ACCESS_TOKEN_TTL_S, path: '/', secure }));
  ctx.append('Set-Cookie', cookie('refresh_token', t.refresh, { maxAgeS: REFRESH_TOKEN_TTL_S, path: REFRESH_COOKIE_PATH, secure }));
  ctx.body = sessionBody(t, t.user, deps.config.PUBLIC_BASE_URL);
}

/** The body of a new session (sign-in and refresh answer alike). */
function sessionBody(t: { access: string; refresh: string }, user: NonNullable<UserRow>, publicBaseUrl: string) {
  return {
    access_token: t.access,
    refresh_token: t.refresh,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_S,
    refresh_expires_in: REFRESH_TOKEN_TTL_S,
    authenticated: true,
    user: toProfile(user, publicBaseUrl),
  };
}

function clearCookies(deps: AppDeps, ctx: Context) {
  const secure = deps.config.PUBLIC_BASE_URL.startsWith('https:');
  ctx.append('Set-Cookie', cookie('access_token', '', { maxAgeS: 0, path: '/', secure }));
  ctx.append('Set-Cookie', cookie('refresh_token', '', { maxAgeS: 0, path: REFRESH_COOKIE_PATH, secure }));
}

/** The 401 codes of signing in; their messages are the registry's meanings. */
const SIGN_IN_CODES = ['nonce_unknown', 'nonce_expired', 'nonce_used', 'nonce_address_mismatch', 'signature_over_nonce', 'signature_invalid'] as const;

function nonceRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/wallet/nonce/:address/',
    operationId: 'getWalletNonce',
    summary: 'Issue a single-use sign-in nonce and the exact message to sign',
    tags: ['authentication'],
    params: z.object({ address }),
    responses: { 200: { description: 'challenge', schema: nonceResponse } },
    async handler(ctx, { params }) {
      ctx.body = await issueNonce(deps.redis, deps.config.QUEUE_PREFIX, { baseUrl: deps.config.PUBLIC_BASE_URL, address: params.address, chainId: deps.config.SIWE_CHAIN_ID });
    },
  });
}

function verifyRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/wallet/verify/',
    operationId: 'verifyWallet',
    summary: 'Verify a personal_sign signature over the issued message; sets session cookies',
    description: `401 codes: ${SIGN_IN_CODES.map((c) => `${c} (${errorCodes[c].description})`).join('; ')}`,
    tags: ['authentication'],
    body: z.object({
      address,
      signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte hex signature with 0x prefix'),
      nonce: z.string().regex(/^[0-9a-f]{32}$/, 'must be the 32-character hex nonce'),
    }),
    responses: { 200: { description: 'signed in', schema: tokensResponse }, 401: { description: `The signature or nonce is refused (${SIGN_IN_CODES.join(', ')})` } },
    async handler(ctx, { body }) {
      answerSession(deps, ctx, await signIn(deps, body, { ip: ctx.ip, userAgent: ctx.get('user-agent') || undefined }));
    },
  });
}

function refreshRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/wallet/refresh/',
    operationId: 'refreshSession',
    summary: 'Rotate the refresh token (cookie or body) for a new access/refresh pair',
    description: 'Each refresh token works once. Presenting a spent one revokes its whole family (401 refresh_token_reused); the caller must sign in again.',
    tags: ['authentication'],
    body: z.object({ refresh_token: text().min(1).max(4096).optional() }),
    responses: {
      200: { description: 'new session', schema: tokensResponse },
      401: {
        description:
          'refresh_token_missing, refresh_token_invalid, refresh_token_expired, refresh_token_reused (its whole family is revoked), refresh_token_revoked, account_not_found',
      },
    },
    async handler(ctx, { body }) {
      const fromCookie = ctx.cookies.get('refresh_token');
      const token = body.refresh_token ?? fromCookie;
      if (!token) throw new DomainError('refresh_token_missing', 'send the refresh_token cookie or {"refresh_token": "..."}');
      if (!body.refresh_token) assertSameOrigin(ctx, deps.config.TRUSTED_ORIGIN);
      try {
        answerSession(deps, ctx, await refreshSession(deps, token));
      } catch (err) {
        if (err instanceof DomainError && err.code === 'refresh_token_reused') clearCookies(deps, ctx);
        throw err;
      }
    },
  });
}

function logoutRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/wallet/logout/',
    operationId: 'logout',
    summary: 'Revoke the refresh-token family and clear the session cookies',
    description: 'An access token already handed out stays valid until it expires (at most 60 minutes).',
    tags: ['authentication'],
    body: z.object({ refresh_token: text().min(1).max(4096).optional() }),
    responses: { 200: { description: 'logged out', schema: z.object({ logged_out: z.literal(true) }) } },
    async handler(ctx, { body }) {
      const token = body.refresh_token ?? ctx.cookies.get('refresh_token');
      if (!body.refresh_token && token) assertSameOrigin(ctx, deps.config.TRUSTED_ORIGIN);
      if (token) await endSession(deps, token);
      clearCookies(deps, ctx);
      ctx.body = { logged_out: true };
    },
  });
}

export function walletAuthRoutes(deps: AppDeps): RouteDef[] {
  return [nonceRoute(deps), verifyRoute(deps), refreshRoute(deps), logoutRoute(deps)];
}
