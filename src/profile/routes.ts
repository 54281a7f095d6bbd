/**
 * Profile, own submissions and earnings (spec: Profile fields, Submission list, Earnings summary,
 * Profile and earnings endpoints), the public profile and the profile-picture files.
 *
 * Decisions (documented in the OpenAPI document):
 *  - PUT /wallet/profile/ takes JSON or multipart/form-data with the writable fields; only the fields
 *    present change. An empty string (or JSON null) clears a text field. The response is the updated
 *    profile record. `username` is refused here (POST /wallet/username/set/).
 *  - model_name: required when a request sets account_type to cyborg or bot and no model name is
 *    stored; refused for humans; switching to human clears it. Requests that touch neither field are
 *    not checked, so an older cyborg account without a model name can still edit its bio.
 *  - profile_picture: multipart file only (JSON may send null to remove the picture). Answered
 *    synchronously; the image work runs in a bounded picture process at the lowest CPU priority (see updateProfileRoute).
 *  - Public profile: GET /users/<address-or-username>/ (a username never looks like an address).
 */
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { looksLikeAddress, USERNAME_PATTERN } from '../identity/index.js';
import { DomainError } from '../platform/errors/index.js';
import { defineRoute, queryInt, type RouteDef } from '../platform/http/route.js';
import { announcesUpload, MediaReader, Pictures, profileBodyParser } from '../media/index.js';
import { Limits } from '../platform/http/rate-limit.js';
import { errorCodes, type ErrorCode } from '../platform/errors/codes.js';
import { findUserByUsername, listOwnSubmissions, submissionStats } from './queries.js';
import { earningsEstimate, EARNINGS_CACHE_TTL_S, monthOf, recentDropsOf } from '../rewards/index.js';
import { getUserByAddress, toProfile, type UserRow } from '../identity/index.js';
import { profileSchema, text } from '../platform/http/schemas.js';
import { toDecision } from '../articles/index.js';
import { earningsResponse, profileBody, publicProfileSchema, submissionsResponse } from './schemas.js';
import { changeUsername, currentUser, editProfile, pictureBusy } from './service.js';
import { toDrop } from './drops.js';

/** Retry-After of a refusal by a full picture pool: a queue's worth of pictures is a few seconds of work. */
const PICTURE_RETRY_AFTER_S = 5;

function publicProfile(u: NonNullable<UserRow>, baseUrl: string) {
  const { roles: _roles, ...rest } = toProfile(u, baseUrl);
  return rest;
}

const codes = (names: ErrorCode[]) => names.map((n) => `\`${n}\`: ${errorCodes[n].description}`).join(' ');

function myProfileRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/wallet/me/',
    operationId: 'getMyProfile',
    summary: "The signed-in user's profile record",
    tags: ['profile'],
    auth: 'user',
    responses: { 200: { description: 'profile', schema: profileSchema } },
    async handler(ctx) {
      ctx.body = toProfile(await currentUser(deps.db, ctx.state.user!.id), deps.config.PUBLIC_BASE_URL);
    },
  });
}

const uploadLimit = (deps: AppDeps) => ({ key: 'profile-picture-upload', points: deps.config.PROFILE_PICTURE_UPLOADS_PER_HOUR, durationS: 3600 });
const addressUploadLimit = (deps: AppDeps) => ({
  key: 'profile-picture-upload-address',
  points: deps.config.PROFILE_PICTURE_UPLOADS_PER_ADDRESS_PER_HOUR,
  durationS: 3600,
});

/**
 * The upload limits and the picture bound, applied as early as each can be:
 *  - before the body is read: a multipart body from a client address with no upload left is refused
 *    (429); a multipart body too long to be text fields alone (it must carry a file) is refused when
 *    the account has no upload left (429) or every picture slot is taken (503 profile_picture_busy);
 *  - after it is read, before any image work, a request that carries a picture counts against the
 *    address's and the account's hourly limits. Other edits are not counted.
 */
function uploadLimits(deps: AppDeps, pictures: Pictures): { spent: Middleware; count: Middleware } {
  let limits: { address: Middleware; account: Middleware; countAccount: Middleware; limits: Limits } | undefined;
  const of = () => {
    const l = new Limits(deps.redis, deps.config.QUEUE_PREFIX, deps.config);
    return (limits ??= {
      address: l.perIpSpent(addressUploadLimit(deps)),
      account: l.perAccountSpent(uploadLimit(deps)),
      countAccount: l.perAccount(uploadLimit(deps)),
      limits: l,
    });
  };
  const admit: Middleware = (ctx, next) => {
    if (pictures.pool.full) throw pictureBusy(PICTURE_RETRY_AFTER_S);
    return next();
  };
  return {
    spent: async (ctx, next) => {
      if (!ctx.is('multipart/form-data') || (!ctx.request.length && !ctx.get('transfer-encoding'))) return next();
      if (!announcesUpload(ctx)) return of().address(ctx, next);
      return of().address(ctx, () => of().account(ctx, () => admit(ctx, next)));
    },
    count: async (ctx, next) => {
      if (!ctx.state.upload) return next();
      const counted = await of().limits.countPerIp(addressUploadLimit(deps), ctx.ip);
      if (counted.refuse) throw counted.refuse;
      return of().countAccount(ctx, next);
    },
  };
}

function updateProfileRoute(deps: AppDeps): RouteDef {
  const pictures = new Pictures({
    concurrency: deps.config.PICTURE_CONCURRENCY,
    queueMax: deps.config.PICTURE_QUEUE_MAX,
    retryAfterS: PICTURE_RETRY_AFTER_S,
    timeoutMs: deps.config.PICTURE_TIMEOUT_MS,
    nice: deps.config.PICTURE_NICE,
  });
  const uploads = uploadLimits(deps, pictures);
  return defineRoute({
    method: 'put',
    path: '/wallet/profile/',
    operationId: 'updateMyProfile',
    summary: 'Update the writable profile fields (JSON or multipart/form-data); returns the profile record',
    description: [
      'Only the fields sent change; an empty string (or JSON null) clears a text field.',
      'twitter_handle loses a leading @; website gets https:// when it has no scheme and must then be an http(s) URL;',
      'account_type is human, cyborg or bot; model_name is required when setting cyborg/bot without a stored one, refused for humans, and cleared when switching to human.',
      'profile_picture is a multipart file only: JPEG, PNG or GIF by content (magic bytes; the name and declared type are ignored), at most 5 MB;',
      'a GIF at most 50 frames and 16 million pixels over all frames (width x height x frames), a JPEG or PNG at most 50 million pixels, read from the header before anything is decoded.',
      'It is decoded and re-encoded (EXIF orientation applied, then every metadata block such as EXIF GPS location dropped; scaled down to fit 1024x1024),',
      'stored in PostgreSQL and served at {host_url}/media/profile-pictures/<sha256>.<ext> (the hash of the stored bytes); the previous picture is deleted unless another profile uses the same bytes.',
      'The answer is synchronous (200 with the new picture): the image work runs in a picture process beside the web process, at the lowest CPU priority, so it never takes the cores other requests need,',
      'and within a bound (PICTURE_CONCURRENCY at once, PICTURE_QUEUE_MAX waiting); when the bound is reached, or the work outlasts PICTURE_TIMEOUT_MS, the upload is refused with 503 profile_picture_busy and Retry-After.',
      'Uploads count against a per-account limit (PROFILE_PICTURE_UPLOADS_PER_HOUR) and a per-client-address limit (PROFILE_PICTURE_UPLOADS_PER_ADDRESS_PER_HOUR), 429 rate_limited; edits without a file do not.',
      'Refusals come before the body is read where they can: any multipart body from an address with no upload left (429), and a multipart body too long to be text fields alone when the account has no upload left (429) or every picture slot is taken (503).',
      'On any rejection nothing is stored.',
      codes([
        'profile_picture_too_large',
        'profile_picture_too_many_pixels',
        'profile_picture_unsupported_type',
        'profile_picture_unreadable',
        'profile_picture_busy',
        'multipart_invalid',
        'unsupported_media_type',
      ]),
    ].join(' '),
    tags: ['profile'],
    auth: 'user',
    body: profileBody,
    bodyTypes: ['application/json', 'multipart/form-data'],
    before: [uploads.spent, profileBodyParser(), uploads.count],
    responses: {
      200: { description: 'the updated profile', schema: profileSchema },
      413: { description: 'profile_picture_too_large or profile_picture_too_many_pixels' },
      415: { description: 'profile_picture_unsupported_type, profile_picture_unreadable or unsupported_media_type' },
      429: {
        description: 'rate_limited: PROFILE_PICTURE_UPLOADS_PER_HOUR picture uploads per account, or PROFILE_PICTURE_UPLOADS_PER_ADDRESS_PER_HOUR per client address, per hour',
      },
      503: { description: 'profile_picture_busy: the picture pool is full; Retry-After says when to send it again' },
    },
    async handler(ctx, { body }) {
      const row = await editProfile(deps.db, pictures, ctx.state.user!.id, body, ctx.state.upload);
      ctx.body = toProfile(row, deps.config.PUBLIC_BASE_URL);
    },
  });
}

function setUsernameRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'post',
    path: '/wallet/username/set/',
    operationId: 'setMyUsername',
    summary: 'Set or change the username; returns the profile record',
    description: [
      `Pattern ${USERNAME_PATTERN}: 3-30 ASCII letters, digits or underscore, starting with a letter (so it never looks like an address).`,
      'Unique regardless of letter case; the case as sent is what is shown. Setting your own name again (in any case) succeeds.',
      codes(['username_invalid', 'username_reserved', 'username_taken']),
    ].join(' '),
    tags: ['profile'],
    auth: 'user',
    body: z.strictObject({ username: text().meta({ description: `Matches ${USERNAME_PATTERN}` }) }),
    responses: { 200: { description: 'the updated profile', schema: profileSchema }, 409: { description: 'username_taken' } },
    async handler(ctx, { body }) {
      ctx.body = toProfile(await changeUsername(deps.db, ctx.state.user!.id, body.username), deps.config.PUBLIC_BASE_URL);
    },
  });
}

function publicProfileRoute(deps: AppDeps): RouteDef {
  const base = deps.config.PUBLIC_BASE_URL;
  return defineRoute({
    method: 'get',
    path: '/users/:id/',
    operationId: 'getPublicProfile',
    summary: 'Public profile by wallet address (0x + 40 hex, any case) or username (any case)',
    description: `The profile record without roles. ${codes(['user_not_found'])}`,
    tags: ['profile'],
    params: z.object({ id: z.string().min(1).max(64).meta({ description: 'Wallet address or username' }) }),
    responses: { 200: { description: 'public profile', schema: publicProfileSchema }, 404: { description: 'user_not_found' } },
    async handler(ctx, { params }) {
      const u = looksLikeAddress(params.id) ? await getUserByAddress(deps.db, params.id) : await findUserByUsername(deps.db, params.id);
      if (!u) throw new DomainError('user_not_found', `no account with address or username "${params.id}"`);
      ctx.body = publicProfile(u, base);
    },
  });
}

function pictureRoute(deps: AppDeps): RouteDef {
  const pictures = new MediaReader(deps.db, { cacheBytes: deps.config.MEDIA_CACHE_BYTES, ttlMs: deps.config.MEDIA_CACHE_TTL_MS });
  return defineRoute({
    method: 'get',
    path: '/media/profile-pictures/:file',
    mount: 'root',
    operationId: 'getProfilePicture',
    summary: 'A stored profile picture, with its content type (image/jpeg, image/png or image/gif)',
    description: [
      'Names are `<sha256 of the bytes>.<jpg|png|gif>`: a URL always means the same bytes, so the answer is',
      '`Cache-Control: public, max-age=31536000, immutable` with a strong `ETag` (the hash); `If-None-Match` with it answers 304.',
      'The type is the one detected from the bytes when they were stored; `X-Content-Type-Options: nosniff`.',
      'Served from PostgreSQL by every web process. A name of the disk era (32 hex) redirects (308) to its current name.',
      codes(['picture_not_found']),
    ].join(' '),
    tags: ['profile'],
    params: z.object({ file: z.string().max(80) }),
    responses: {
      200: { description: 'the picture', contentType: 'image/*', schema: z.string().meta({ format: 'binary' }) },
      304: { description: 'not modified (If-None-Match matched the ETag)' },
      308: { description: 'a picture name of the disk era: Location is its content-addressed name' },
      404: { description: 'picture_not_found' },
    },
    async handler(ctx, { params }) {
      const name = params.file;
      ctx.set('X-Content-Type-Options', 'nosniff');
      const etag = `"${name.slice(0, 64)}"`;
      const inm = ctx.get('if-none-match');
      if (inm && inm.split(',').some((t) => t.trim() === '*' || t.trim().replace(/^W\//, '') === etag) && (await pictures.exists(name))) {
        ctx.status = 304;
        ctx.set('ETag', etag);
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        return;
      }
      const f = await pictures.get(name);
      if (!f) {
        const current = await pictures.legacy(name);
        if (current) {
          ctx.status = 308;
          ctx.redirect(`/media/profile-pictures/${current}`);
          ctx.set('Cache-Control', 'public, max-age=86400');
          return;
        }
        throw new DomainError('picture_not_found', 'no such profile picture');
      }
      ctx.type = f.type;
      ctx.length = f.bytes.length;
      ctx.set('ETag', f.etag);
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.body = f.bytes;
    },
  });
}

function submissionsRoute(deps: AppDeps): RouteDef {
  return defineRoute({
    method: 'get',
    path: '/wallet/me/submissions/',
    operationId: 'listMySubmissions',
    summary: "The signed-in user's submissions with stats and pagination",
    description:
      'status: submitted (pending review), approved (approved or scheduled), killed, all (default; also retracted). Newest first. A page past the end returns an empty list.',
    tags: ['profile'],
    auth: 'user',
    query: z.strictObject({
      status: z.enum(['submitted', 'approved', 'killed', 'all']).default('all'),
      page: queryInt({ min: 1, max: 100_000, default: 1 }),
      per_page: queryInt({ min: 1, max: 50, default: 20 }),
    }),
    responses: { 200: { description: 'submissions', schema: submissionsResponse } },
    async handler(ctx, { query }) {
      const userId = ctx.state.user!.id;
      const page = query.page;
      const perPage = query.per_page;
      const [list, stats] = await Promise.all([listOwnSubmissions(deps.db, userId, query.status, page, perPage), submissionStats(deps.db, userId)]);
      const decided = stats.approved + stats.rejected;
      const totalPages = Math.ceil(list.total / perPage);
      ctx.body = {
        submissions: list.rows.map((r) => ({
          id: r.id,
          headline: r.headline,
          url: r.url,
          status: r.status,
          submitted_at: r.created_at.toISOString(),
          posted_at: r.published_at?.toISOString() ?? null,
          decision: toDecision(r, false),
        })),
        stats: {
          total_submitted: stats.total,
          approved: stats.approved,
          pending: stats.pending,
          rejected: stats.rejected,
          approval_rate: decided === 0 ? 0 : Math.round((stats.approved / decided) * 10_000) / 10_000,
        },
        pagination: {
          page,
          per_page: perPage,
          total: list.total,
          total_pages: totalPages,
          has_next: page < totalPages,
          has_previous: page > 1,
        },
      };
    },
  });
}

/** The positions as the spec shapes them (without the credited fields include=credibility adds). */
function withoutCredited<P extends { credited_score?: number; credited_share?: number | null }>(positions: Record<string, P>) {
  return Object.fromEntries(Object.entries(positions).map(([c, { credited_score: _s, credited_share: _c, ...p }]) => [c, p]));
}

function earningsRoute(deps: AppDeps): RouteDef {
  const base = deps.config.PUBLIC_BASE_URL;
  return defineRoute({
    method: 'get',
    path: '/wallet/me/earnings/',
    operationId: 'getMyEarnings',
    summary: 'Earnings summary: leaderboard positions, estimated reward for the current month, recent drops',
    description: [
      "Positions come from the current month's leaderboard snapshot (recomputed every 5 minutes).",
      "estimated_squid.breakdown[c] = allocation[c] * market_share[c] / 100 (6 decimals), allocation[c] being the category's share of the 1,000,000 SQUID pool",
      "set by the previous month's DAO vote (the last recorded vote stays in force; 25% each when none was ever recorded).",
      'With include=credibility: credited_score is what the share is computed from (activity weighted by credibility, docs/rewards.md) and credited_share how much of activity_count counted; credibility.reasons says in general terms why some activity counted less.',
      `Positions and the estimate are cached in Redis for ${EARNINGS_CACHE_TTL_S / 3600} hour per user and month; recent_drops are read fresh.`,
    ].join(' '),
    tags: ['rewards'],
    auth: 'user',
    // Not strict: unknown parameters stay ignored, as before include existed.
    query: z.object({ include: z.enum(['credibility']).optional().meta({ description: 'credibility: add credited_score, credited_share and credibility' }) }),
    responses: { 200: { description: 'earnings summary', schema: earningsResponse } },
    async handler(ctx, { query }) {
      const u = await currentUser(deps.db, ctx.state.user!.id);
      const now = new Date();
      const estimate = await earningsEstimate(deps, u.id, monthOf(now));
      const drops = await recentDropsOf(deps.db, u.id, 12);
      const withCredibility = query.include === 'credibility';
      ctx.body = {
        user: { id: u.id, username: u.username, ethereum_address: toProfile(u, base).ethereum_address },
        current_month: { month: now.getUTCMonth() + 1, year: now.getUTCFullYear() },
        leaderboard_positions: withCredibility ? estimate.leaderboard_positions : withoutCredited(estimate.leaderboard_positions),
        ...(withCredibility ? { credibility: estimate.credibility } : {}),
        estimated_squid: estimate.estimated_squid,
        recent_drops: drops.map(toDrop),
      };
    },
  });
}

export function profileRoutes(deps: AppDeps): RouteDef[] {
  return [myProfileRoute(deps), updateProfileRoute(deps), setUsernameRoute(deps), publicProfileRoute(deps), pictureRoute(deps), submissionsRoute(deps), earningsRoute(deps)];
}
