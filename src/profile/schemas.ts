/** Request and response schemas of the profile, submissions and earnings endpoints. */
import { z } from 'zod';
import { profileSchema, text } from '../platform/http/schemas.js';
import { decisionSchema } from '../articles/index.js';

const clearable = (max: number) =>
  text('display')
    .nullable()
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

const website = text()
  .nullable()
  .transform((v) => (v === null ? null : normalizeWebsite(v)))
  .refine((v) => v === null || v.length <= 200, 'must be at most 200 characters')
  .refine((v) => v === null || isHttpUrl(v), 'must be a valid http(s) URL (https:// is prepended when no scheme is given)')
  .meta({ description: 'Web site; https:// is prepended when the value has no scheme; must be an http(s) URL (max 200)' });

export const profileBody = z.strictObject({
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

export const publicProfileSchema = profileSchema.omit({ roles: true }).meta({ id: 'PublicProfile' });

export const submissionsResponse = z
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
  credited_score: z
    .number()
    .optional()
    .meta({ description: "With include=credibility only: the credited activity the share is computed from (the board entry's score, 4 decimals); 0 when not on the board" }),
  credited_share: z
    .number()
    .nullable()
    .optional()
    .meta({ description: 'With include=credibility only: how much of activity_count counted, credited_score / activity_count, 0..1; null when not on the board' }),
});
const perCategory = <T extends z.ZodType>(t: T) => z.object(Object.fromEntries(categoryKeys.map((k) => [k, t])) as Record<(typeof categoryKeys)[number], T>);

export const dropSchema = z
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

export const earningsResponse = z
  .object({
    user: z.object({ id: z.number().int(), username: z.string().nullable(), ethereum_address: z.string() }),
    current_month: z.object({ month: z.number().int().meta({ description: '1..12 (UTC)' }), year: z.number().int() }),
    leaderboard_positions: perCategory(position),
    credibility: z
      .object({
        reasons: z
          .array(z.object({ reason: z.string().meta({ description: 'Why, in general terms (docs/rewards.md)' }), items: z.number().int() }))
          .meta({ description: "Why some of this month's votes, yaps and submissions counted less, with how many each; empty when everything counted" }),
      })
      .optional()
      .meta({ description: "With include=credibility only: how much of the user's own activity counted this month, and why (the detector's limits are not published)" }),
    estimated_squid: z.object({
      total: z.number(),
      breakdown: perCategory(z.number()),
      based_on: z.string().meta({ description: 'The allocation (DAO vote or default split) and the leaderboard snapshot used' }),
      note: z.string(),
    }),
    recent_drops: z.array(dropSchema).meta({ description: "The user's drops of the last 12 distributed months, newest first" }),
  })
  .meta({ id: 'EarningsSummary' });

export type ProfileBody = z.output<typeof profileBody>;
