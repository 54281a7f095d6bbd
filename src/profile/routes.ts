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
 *  - profile_picture: multipart file only (JSON may send null to remove the picture).
 *  - Public profile: GET /users/<address-or-username>/ (a username never looks like an address).
 */
import type { Context } from 'koa';
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { looksLikeAddress, usernameProblem, USERNAME_PATTERN } from '../identity/index.js';
import { DomainError, type FieldIssue } from '../platform/errors/index.js';
import { defineRoute, queryInt, validationError, type RouteDef } from '../platform/http/route.js';
import { PictureRejected, reencodePicture } from '../media/index.js';
import { sniffPicture } from '../media/index.js';
import { MediaReader, mediaName, type NewMedia } from '../media/index.js';
import { profileBodyParser } from '../media/index.js';
import { errorCodes, type ErrorCode } from '../platform/errors/codes.js';
import { findUserByUsername, listOwnSubmissions, setUsername, submissionStats, updateProfile, type ProfilePatch } from './queries.js';
import { earningsEstimate, EARNINGS_CACHE_TTL_S } from '../rewards/index.js';
import { recentDropsOf } from '../rewards/index.js';
import { getUserByAddress, getUserById, toProfile, type UserRow } from '../identity/index.js';
import { formatTokens, monthOf } from '../rewards/index.js';
import { profileSchema } from '../platform/http/schemas.js';
import { toDecision } from '../articles/index.js';
import { decisionSchema } from '../articles/index.js';

/** Trimmed text; '' and null clear the field. */
const clearable = (max: number) =>
  z
    .union([z.string(), z.null()])
    .transform((v) => (v === null || v.trim() === '' ? null : v.trim()))
    .refine((v) => v === null || v.length <= max, `must be at most ${max} characters`);

const twitterHandle = z
  .union([z.string(), z.null()])
  .transform((v) => (v === null ? null : v.trim().replace(/^@/, '')))
  .transform((v) => (v === '' ? null : v))
  .refine((v) => v === null || /^[A-Za-z0-9_]{1,15}$/.test(v), 'must be 1-15 letters, digits or _ (a leading @ is removed)')
  .meta({ description: 'X/Twitter handle; a leading @ is stripped; 1-15 letters, digits or _' });

/** Prepends https:// when no scheme is given; the result must be an http(s) URL with a host and no credentials. */
function normalizeWebsite(input: string): string | null {
  const v = input.trim();
  if (v === '') return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? v : `https://${v}`;
  return withScheme;
}

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !u.username && !u.password && !/\s/.test(v);
  } catch {
    return false;
  }
}

const website = z
  .union([z.string(), z.null()])
  .transform((v) => (v === null ? null : normalizeWebsite(v)))
  .refine((v) => v === null || v.length <= 200, 'must be at most 200 characters')
  .refine((v) => v === null || isHttpUrl(v), 'must be a valid http(s) URL (https:// is prepended when no scheme is given)')
  .meta({ description: 'Web site; https:// is prepended when the value has no scheme; must be an http(s) URL (max 200)' });

const profileBody = z.strictObject({
  display_name: clearable(64).optional().meta({ description: 'Max 64 characters; empty clears' }),
  bio: clearable(1000).optional().meta({ description: 'Max 1000 characters; empty clears' }),
  twitter_handle: twitterHandle.optional(),
  website: website.optional(),
  location: clearable(100).optional().meta({ description: 'Max 100 characters; empty clears' }),
  account_type: z.enum(['human', 'cyborg', 'bot']).optional(),
  model_name: clearable(100)
    .optional()
    .meta({ description: 'AI model behind a cyborg or bot (max 100). Required when setting account_type cyborg/bot without a stored one; refused for humans' }),
  profile_picture: z.null().optional().meta({
    description: 'multipart/form-data: the picture file (JPEG, PNG or GIF by content, max 5 MB). JSON: null removes the picture (a file cannot be sent as JSON)',
  }),
  username: z
    .unknown()
    .optional()
    .refine((v) => v === undefined, 'set the username with POST /api/v1/wallet/username/set/'),
});

const publicProfileSchema = profileSchema.omit({ roles: true }).meta({ id: 'PublicProfile' });

const submissionsResponse = z
  .object({
    submissions: z.array(
      z.object({
        id: z.number().int(),
        headline: z.string(),
        url: z.string(),
        status: z.enum(['submitted', 'approved', 'killed', 'scheduled', 'retracted']),
        submitted_at: z.string().meta({ description: 'When it was submitted (ISO 8601 UTC)' }),
        posted_at: z.string().nullable().meta({ description: 'When it went live (ISO 8601 UTC), null if never published' }),
        decision: decisionSchema.nullable().meta({ description: "Why it was killed or retracted (reason, label, duplicate_of; the editor's note is staff-only); null otherwise" }),
      }),
    ),
    stats: z
      .object({
        total_submitted: z.number().int().meta({ description: 'Every submission of the user, any status' }),
        approved: z.number().int().meta({ description: 'Accepted by an editor: approved or scheduled' }),
        pending: z.number().int().meta({ description: 'Awaiting review (submitted)' }),
        rejected: z.number().int().meta({ description: 'Killed by an editor' }),
        approval_rate: z
          .number()
          .meta({ description: 'approved / (approved + rejected), 0..1; 0 when nothing was decided yet. Pending and retracted submissions are not in the denominator' }),
      })
      .meta({ description: "Over all the user's submissions (independent of the status filter)" }),
    pagination: z
      .object({
        page: z.number().int(),
        per_page: z.number().int(),
        total: z.number().int().meta({ description: 'Items matching the status filter' }),
        total_pages: z.number().int().meta({ description: 'ceil(total / per_page); 0 when there are none' }),
        has_next: z.boolean(),
        has_previous: z.boolean(),
      })
      .meta({ id: 'Pagination' }),
  })
  .meta({ id: 'SubmissionList' });

const categoryKeys = ['top_posters', 'top_yappers', 'top_voters', 'top_editors'] as const;
const position = z.object({
  rank: z.number().int().nullable().meta({ description: 'Rank on the board this month (ties share a rank); null when the user has no counted activity' }),
  market_share: z.number().meta({ description: "Percent of the month's total in this category (0..100, 4 decimals)" }),
  activity_count: z.number().meta({ description: 'The measured activity (see GET /leaderboards/); 0 when not on the board' }),
});
const perCategory = <T extends z.ZodType>(t: T) => z.object(Object.fromEntries(categoryKeys.map((k) => [k, t])) as Record<(typeof categoryKeys)[number], T>);

const dropSchema = z
  .object({
    month: z.string().meta({ description: 'YYYY-MM of the distributed month' }),
    address: z.string().meta({ description: "Checksummed claim address (the leaf's address)" }),
    amount: z.string().meta({ description: "Total drop in base units (integer string, 18 decimals): the leaf's uint256" }),
    amount_squid: z.string().meta({ description: 'The same amount as a decimal token string' }),
    breakdown: perCategory(z.string()).meta({ description: 'Per category, base units' }),
    merkle_root: z.string(),
    proof: z.array(z.string()).meta({ description: 'OpenZeppelin MerkleProof for leaf (address, amount), standard leaf encoding' }),
    distributed_at: z.string(),
  })
  .meta({ id: 'RewardDrop' });

export { dropSchema };

const earningsResponse = z
  .object({
    user: z.object({ id: z.number().int(), username: z.string().nullable(), ethereum_address: z.string() }),
    current_month: z.object({ month: z.number().int().meta({ description: '1..12 (UTC)' }), year: z.number().int() }),
    leaderboard_positions: perCategory(position),
    estimated_squid: z.object({
      total: z.number(),
      breakdown: perCategory(z.number()),
      based_on: z.string().meta({ description: 'The allocation (DAO vote or default split) and the leaderboard snapshot used' }),
      note: z.string(),
    }),
    recent_drops: z.array(dropSchema).meta({ description: "The user's drops of the last 12 distributed months, newest first" }),
  })
  .meta({ id: 'EarningsSummary' });

export function toDrop(d: Awaited<ReturnType<typeof recentDropsOf>>[number]) {
  return {
    month: d.month,
    address: d.address,
    amount: d.amount,
    amount_squid: formatTokens(BigInt(d.amount)),
    breakdown: { top_posters: d.top_posters, top_yappers: d.top_yappers, top_voters: d.top_voters, top_editors: d.top_editors },
    merkle_root: d.merkle_root ?? '',
    proof: d.proof,
    distributed_at: d.created_at.toISOString(),
  };
}

function publicProfile(u: NonNullable<UserRow>, baseUrl: string) {
  const { roles: _roles, ...rest } = toProfile(u, baseUrl);
  return rest;
}

async function currentUser(deps: AppDeps, ctx: Context) {
  const u = await getUserById(deps.db, ctx.state.user!.id);
  if (!u) throw new DomainError('account_not_found', 'the account no longer exists');
  return u;
}

/** The model_name rule (see the header); returns the patch with model_name resolved. */
function applyModelNameRule(body: z.output<typeof profileBody>, current: NonNullable<UserRow>, patch: ProfilePatch): ProfilePatch {
  if (body.account_type === undefined && body.model_name === undefined) return patch;
  const type = body.account_type ?? current.account_type;
  const model = body.model_name !== undefined ? body.model_name : current.model_name;
  const issue = (message: string): FieldIssue => ({ path: 'body.model_name', code: 'model_name_rule', message });
  if (type === 'human') {
    if (body.model_name) throw validationError([issue('only cyborg and bot accounts have a model_name')]);
    return { ...patch, model_name: null };
  }
  if (!model) throw validationError([{ ...issue(`model_name is required for ${type} accounts`), code: 'required' }]);
  return patch;
}

export function profileRoutes(deps: AppDeps): RouteDef[] {
  const pictures = new MediaReader(deps.db, { cacheBytes: deps.config.MEDIA_CACHE_BYTES, ttlMs: deps.config.MEDIA_CACHE_TTL_MS });
  const base = deps.config.PUBLIC_BASE_URL;
  const codes = (names: ErrorCode[]) => names.map((n) => `\`${n}\`: ${errorCodes[n].description}`).join(' ');

  return [
    defineRoute({
      method: 'get',
      path: '/wallet/me/',
      operationId: 'getMyProfile',
      summary: "The signed-in user's profile record",
      tags: ['profile'],
      auth: 'user',
      responses: { 200: { description: 'profile', schema: profileSchema } },
      async handler(ctx) {
        ctx.body = toProfile(await currentUser(deps, ctx), base);
      },
    }),

    defineRoute({
      method: 'put',
      path: '/wallet/profile/',
      operationId: 'updateMyProfile',
      summary: 'Update the writable profile fields (JSON or multipart/form-data); returns the profile record',
      description: [
        'Only the fields sent change; an empty string (or JSON null) clears a text field.',
        'twitter_handle loses a leading @; website gets https:// when it has no scheme and must then be an http(s) URL;',
        'account_type is human, cyborg or bot; model_name is required when setting cyborg/bot without a stored one, refused for humans, and cleared when switching to human.',
        'profile_picture is a multipart file only: JPEG, PNG or GIF by content (magic bytes; the name and declared type are ignored), at most 5 MB.',
        'It is decoded and re-encoded (EXIF orientation applied, then every metadata block such as EXIF GPS location dropped; scaled down to fit 1024x1024),',
        'stored in PostgreSQL and served at {host_url}/media/profile-pictures/<sha256>.<ext> (the hash of the stored bytes); the previous picture is deleted unless another profile uses the same bytes.',
        'On any rejection nothing is stored.',
        codes(['profile_picture_too_large', 'profile_picture_unsupported_type', 'profile_picture_unreadable', 'multipart_invalid', 'unsupported_media_type']),
      ].join(' '),
      tags: ['profile'],
      auth: 'user',
      body: profileBody,
      bodyTypes: ['application/json', 'multipart/form-data'],
      before: [profileBodyParser()],
      responses: {
        200: { description: 'the updated profile', schema: profileSchema },
        413: { description: 'profile_picture_too_large' },
        415: { description: 'profile_picture_unsupported_type, profile_picture_unreadable or unsupported_media_type' },
      },
      async handler(ctx, { body }) {
        const upload = ctx.state.upload;
        if (upload && upload.field !== 'profile_picture') {
          throw validationError([{ path: `body.${upload.field}`, code: 'unknown_field', message: `unknown file field "${upload.field}"; the picture goes in profile_picture` }]);
        }
        const current = await currentUser(deps, ctx);
        let patch: ProfilePatch = {};
        for (const k of ['display_name', 'bio', 'twitter_handle', 'website', 'location', 'account_type', 'model_name'] as const) {
          if (body[k] !== undefined) (patch as Record<string, unknown>)[k] = body[k];
        }
        patch = applyModelNameRule(body, current, patch);
        if (body.profile_picture === null) patch.profile_picture = null;

        let picture: NewMedia | undefined;
        if (upload) {
          const ext = await sniffPicture(upload.bytes);
          if (!ext) throw new DomainError('profile_picture_unsupported_type', 'profile_picture must be a JPEG, PNG or GIF image (checked by content)');
          try {
            const p = await reencodePicture(upload.bytes, ext);
            picture = { sha256: p.sha256, bytes: p.bytes, type: p.type, width: p.width, height: p.height };
            patch.profile_picture = mediaName(p.sha256, p.type);
          } catch (err) {
            if (err instanceof PictureRejected)
              throw new DomainError('profile_picture_unreadable', 'profile_picture could not be decoded as an image (corrupt, truncated or too many pixels)');
            throw err;
          }
        }
        const result = await updateProfile(deps.db, current.id, patch, picture);
        if (!result) throw new DomainError('account_not_found', 'the account no longer exists');
        ctx.body = toProfile(result.row, base);
      },
    }),

    defineRoute({
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
      body: z.strictObject({ username: z.string().meta({ description: `Matches ${USERNAME_PATTERN}` }) }),
      responses: { 200: { description: 'the updated profile', schema: profileSchema }, 409: { description: 'username_taken' } },
      async handler(ctx, { body }) {
        const username = body.username.trim();
        const problem = usernameProblem(username);
        if (problem === 'username_invalid') {
          throw new DomainError(problem, 'username must be 3-30 letters, digits or _, starting with a letter', { pattern: USERNAME_PATTERN.source });
        }
        if (problem === 'username_reserved') throw new DomainError(problem, `the username "${username}" is reserved`);
        const r = await setUsername(deps.db, ctx.state.user!.id, username);
        if (r.taken) throw new DomainError('username_taken', `the username "${username}" is taken`);
        if (!r.row) throw new DomainError('account_not_found', 'the account no longer exists');
        ctx.body = toProfile(r.row, base);
      },
    }),

    defineRoute({
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
    }),

    defineRoute({
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
    }),

    defineRoute({
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
    }),

    defineRoute({
      method: 'get',
      path: '/wallet/me/earnings/',
      operationId: 'getMyEarnings',
      summary: 'Earnings summary: leaderboard positions, estimated reward for the current month, recent drops',
      description: [
        "Positions come from the current month's leaderboard snapshot (recomputed every 5 minutes).",
        "estimated_squid.breakdown[c] = allocation[c] * market_share[c] / 100 (6 decimals), allocation[c] being the category's share of the 1,000,000 SQUID pool",
        "set by the previous month's DAO vote (the last recorded vote stays in force; 25% each when none was ever recorded).",
        `Positions and the estimate are cached in Redis for ${EARNINGS_CACHE_TTL_S / 3600} hour per user and month; recent_drops are read fresh.`,
      ].join(' '),
      tags: ['rewards'],
      auth: 'user',
      responses: { 200: { description: 'earnings summary', schema: earningsResponse } },
      async handler(ctx) {
        const u = await currentUser(deps, ctx);
        const now = new Date();
        const estimate = await earningsEstimate(deps, u.id, monthOf(now));
        const drops = await recentDropsOf(deps.db, u.id, 12);
        ctx.body = {
          user: { id: u.id, username: u.username, ethereum_address: toProfile(u, base).ethereum_address },
          current_month: { month: now.getUTCMonth() + 1, year: now.getUTCFullYear() },
          leaderboard_positions: estimate.leaderboard_positions,
          estimated_squid: estimate.estimated_squid,
          recent_drops: drops.map(toDrop),
        };
      },
    }),
  ];
}
