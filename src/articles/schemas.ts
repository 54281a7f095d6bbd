/**
 * Request and response schemas of the articles, yaps and editorial endpoints (validation and the
 * OpenAPI components come from the same definitions).
 */
import { z } from 'zod';
import { DECISION_REASONS, DEFAULT_DECISION_REASON, STORED_DECISION_REASONS } from './rules/moderation.js';
import { TOKEN_ADDRESS_PATTERNS } from '../platform/events/filter.js';
import { normalizeUrl } from '../platform/url/normalize.js';
import { MAX_HEADLINE_LENGTH } from './rules/page-title.js';
import { MAX_YAP_TAG_LENGTH, MAX_YAP_TAGS, YAP_TAG_PATTERN } from './rules/yap.js';
import { isoTimestamp, text } from '../platform/http/schemas.js';

export const MAX_SUBMIT_URL_LENGTH = 2048;
export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;
/** Deeper pages are refused (offset pagination gets slow; use filters). */
export const MAX_PAGE = 10_000;

export const idParam = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, 'must be a positive integer')
    .transform(Number)
    .pipe(z.number().int().max(2_147_483_647, 'is out of range')),
});

export const submitUrl = text()
  .trim()
  .min(1, 'is required')
  .max(MAX_SUBMIT_URL_LENGTH, `must be at most ${MAX_SUBMIT_URL_LENGTH} characters`)
  .refine((v) => /^https?:\/\//i.test(v) && normalizeUrl(v) !== null, 'must be an absolute http:// or https:// URL')
  .refine((v) => !hasCredentials(v), {
    message: 'must not carry a user name or password (user:password@): send the public URL of the story',
    params: { code: 'url_credentials' },
  });

/** A URL with userinfo (`user:password@host`). Refused, not stripped: the credentials are the submitter's to keep out of a public feed. */
function hasCredentials(v: string): boolean {
  try {
    const u = new URL(v);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
}

export const headlineInput = text('display')
  .transform((v) => v.replace(/\s+/g, ' ').trim())
  .pipe(z.string().min(1, 'must not be empty').max(MAX_HEADLINE_LENGTH, `must be at most ${MAX_HEADLINE_LENGTH} characters`));

const slugTag = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.string().max(MAX_YAP_TAG_LENGTH).regex(YAP_TAG_PATTERN, 'must be a slug: lower-case letters, digits and single hyphens'));

export const yapTags = z
  .array(slugTag)
  .max(MAX_YAP_TAGS, `at most ${MAX_YAP_TAGS} tags`)
  .transform((t) => [...new Set(t)]);
export const articleTags = z
  .array(slugTag)
  .max(10, 'at most 10 tags')
  .transform((t) => [...new Set(t)]);

/** EVM (0x + 40 hex) or Solana-style base58 (32-44 characters) contract address. */
export const tokenAddress = z
  .string()
  .trim()
  .refine((v) => TOKEN_ADDRESS_PATTERNS.some((re) => re.test(v)), 'must be a token contract address (0x + 40 hex digits, or a base58 address)')
  .transform((v) => v.toLowerCase());

export const weight = z.union([z.literal(1), z.literal(-1), z.literal(0)], { error: 'must be the integer 1, -1 or 0' });

const warningSchema = z
  .object({
    code: z.string().meta({ description: 'Stable code: headline_pending | headline_unavailable' }),
    message: z.string(),
  })
  .meta({ id: 'Warning', description: 'A non-fatal problem with a request that otherwise succeeded.' });

export const submissionResult = z
  .object({
    success: z.literal(true),
    article_id: z.number().int(),
    status: z.literal('submitted'),
    headline: z.string().meta({ description: 'As supplied, the page title, or (warning headline_pending / headline_unavailable) the provisional "host/path" headline' }),
    headline_source: z.enum(['supplied', 'page_title', 'provisional']),
    slug: z.string(),
    warnings: z.array(warningSchema),
  })
  .meta({ id: 'SubmissionResult' });

const submitterSchema = z
  .object({ id: z.number().int(), username: z.string().nullable(), ethereum_address: z.string().meta({ description: 'EIP-55 checksummed' }) })
  .meta({ id: 'Submitter' });

export const urlCheckResult = z
  .object({
    exists: z.boolean(),
    article_id: z.number().int().optional(),
    status: z.string().optional(),
    headline: z.string().optional(),
    submitted_at: isoTimestamp().optional(),
    submitted_by: submitterSchema.nullable().optional().meta({ description: 'Authenticated callers only; null when the account is gone' }),
  })
  .meta({ id: 'UrlCheckResult', description: 'exists=false is the only field when nothing matches.' });

const topTldrSchema = z
  .object({
    yap_id: z.number().int(),
    text: z.string(),
    score: z.number().int(),
    tags: z.array(z.string()),
    created_at: isoTimestamp(),
    author: z.object({ id: z.number().int(), username: z.string().nullable() }),
  })
  .meta({ id: 'TopTldr', description: 'The highest-scored yap tagged tldr with score >= 0 (ties: the oldest).' });

const issuerSchema = z.object({ name: z.string().nullable(), website: z.string().nullable() }).meta({ id: 'Issuer' });

const articleAssetSchema = z
  .object({
    id: z.string().meta({ description: 'Canonical asset id (GET /assets/{id}/)' }),
    symbol: z.string(),
    name: z.string(),
    salience: z.number().meta({ description: '0 to 1: how much the article is about the asset' }),
    primary: z.boolean().meta({ description: 'The asset the article is mainly about (at most one)' }),
  })
  .meta({ id: 'ArticleAsset' });

const articleItemSchema = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    headline: z.string(),
    url: z.string(),
    status: z.enum(['submitted', 'approved', 'killed', 'scheduled', 'retracted']),
    origin: z.string(),
    source: z.string().meta({ description: 'Publisher host of the URL (without www.) unless set otherwise' }),
    created_at: isoTimestamp('Submission time'),
    published_at: isoTimestamp('Publication time; null until approved').nullable(),
    token_addresses: z.array(z.string()).meta({ description: 'Lower-case' }),
    token_symbols: z.array(z.string()),
    issuer: issuerSchema,
    tags: z.array(z.string()),
    content_type: z.string().nullable(),
    clicks: z.number().int().meta({ description: 'Counted redirects through GET /news/{id}/click' }),
    vote_count: z.number().int().meta({ description: 'Net votes: upvotes minus downvotes' }),
    votes: z.number().int().meta({ description: 'Number of votes cast (up and down)' }),
    yap_count: z.number().int(),
    hot_score: z.number(),
    sponsored: z.record(z.string(), z.unknown()).nullable(),
    top_tldr: topTldrSchema.nullable(),
    story_id: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The story (GET /api/v1/stories/{id}/) this article reports; null until the story worker has assigned it, and for sponsored posts' }),
    story_size: z
      .number()
      .int()
      .nullable()
      .optional()
      .meta({ description: "collapse=story only: the story's member count (articles and wire items, copies included); null for an article without a story" }),
    story_sources: z
      .number()
      .int()
      .nullable()
      .optional()
      .meta({ description: "collapse=story only: the story's count of independent sources; null for an article without a story" }),
    my_vote: z
      .union([z.literal(1), z.literal(-1), z.literal(0)])
      .optional()
      .meta({ description: "The caller's vote on the article: signed-in callers and API keys linked to an account only (the shared page plus a personal overlay)" }),
    assets: z.array(articleAssetSchema).optional().meta({ description: 'The crypto assets the article names (tagged by the asset-tag worker, corrected by editors), by salience' }),
  })
  .meta({ id: 'ArticleItem' });

const hotTermsSchema = z
  .object({
    votes: z.number(),
    yap_quality: z.number(),
    click_term: z.number(),
    engagement: z.number(),
    points: z.number(),
    age_hours: z.number(),
    decay: z.number(),
    score: z.number(),
    computed_at: isoTimestamp().nullable(),
    explanation: z.string(),
  })
  .meta({ id: 'HotTerms', description: 'The terms of the stored hot score (see src/articles/rules/hot-score.ts): score = 100 x max(0, 1 + engagement) / (age_hours + 2)^1.8' });

export const decisionSchema = z
  .object({
    reason: z.enum(STORED_DECISION_REASONS).meta({ description: `One of ${DECISION_REASONS.join(', ')}; '${DEFAULT_DECISION_REASON}' when the editor gave none` }),
    label: z.string().meta({ description: 'The reason in words' }),
    duplicate_of: z.number().int().nullable().meta({ description: 'The article this one duplicates (reason duplicate), or null' }),
    note: z.string().nullable().optional().meta({ description: "The editor's note; present for editors and staff only" }),
  })
  .meta({ id: 'Decision' });

export const articleRecordSchema = articleItemSchema
  .extend({
    normalized_url: z.string(),
    headline_source: z.enum(['supplied', 'page_title', 'provisional', 'editor', 'wire']),
    updated_at: isoTimestamp(),
    scheduled_for: isoTimestamp('Set while scheduled').nullable(),
    reviewed_at: isoTimestamp().nullable(),
    reviewed_by: z.object({ id: z.number().int(), username: z.string().nullable() }).nullable(),
    submitted_by: submitterSchema.nullable().optional().meta({ description: 'Authenticated callers only' }),
    my_vote: z
      .union([z.literal(1), z.literal(-1), z.literal(0)])
      .optional()
      .meta({ description: "The caller's vote (authenticated callers only)" }),
    hot_terms: hotTermsSchema.nullable(),
    decision: decisionSchema.nullable().meta({ description: 'Why the article was killed or retracted; null otherwise' }),
  })
  .meta({ id: 'ArticleRecord' });

const pageLinks = {
  count: z.number().int().meta({ description: 'Total items over all pages' }),
  next: z.string().nullable().meta({ description: 'Absolute URL of the next page, or null' }),
  previous: z.string().nullable().meta({ description: 'Absolute URL of the previous page, or null' }),
};

export const articlePageSchema = z.object({ ...pageLinks, results: z.array(articleItemSchema) }).meta({ id: 'ArticlePage' });

export const yapSchema = z
  .object({
    yap_id: z.number().int(),
    article_id: z.number().int(),
    text: z.string(),
    tags: z.array(z.string()),
    created_at: isoTimestamp(),
    score: z.number().int().meta({ description: 'base_score + vote_score' }),
    base_score: z.number().int().meta({ description: 'By author account type: human 1, cyborg 0, bot -1' }),
    vote_score: z.number().int().meta({ description: 'Sum of the votes on this yap' }),
    author: z.object({ id: z.number().int(), username: z.string().nullable(), ethereum_address: z.string(), account_type: z.enum(['human', 'cyborg', 'bot']) }),
    my_vote: z
      .union([z.literal(1), z.literal(-1), z.literal(0)])
      .optional()
      .meta({ description: "The caller's vote (authenticated callers only)" }),
  })
  .meta({ id: 'Yap' });

export const yapPageSchema = z.object({ ...pageLinks, results: z.array(yapSchema) }).meta({ id: 'YapPage' });

export const articleVoteResult = z
  .object({
    article_id: z.number().int(),
    weight: z.union([z.literal(1), z.literal(-1), z.literal(0)]).meta({ description: "The caller's vote now (0: none)" }),
    vote_count: z.number().int().meta({ description: 'Net votes after this vote' }),
    votes: z.number().int().meta({ description: 'Votes cast after this vote' }),
  })
  .meta({ id: 'ArticleVoteResult' });

export const yapVoteResult = z
  .object({
    yap_id: z.number().int(),
    weight: z.union([z.literal(1), z.literal(-1), z.literal(0)]),
    vote_score: z.number().int(),
    score: z.number().int(),
  })
  .meta({ id: 'YapVoteResult' });

const editChangesSchema = z
  .record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }))
  .meta({ id: 'ArticleChanges', description: '{field: {from, to}} for every field this action changed (also kept in the edit history)' });

export const editorialResult = z.object({ article: articleRecordSchema, changes: editChangesSchema }).meta({ id: 'EditorialResult' });

export const editHistorySchema = z
  .object({
    results: z.array(
      z.object({
        id: z.number().int(),
        editor: z.object({ id: z.number().int().nullable(), username: z.string().nullable() }),
        changes: editChangesSchema,
        created_at: isoTimestamp(),
      }),
    ),
  })
  .meta({ id: 'ArticleEditHistory' });

// ---------------------------------------------------------------------------------------------
// Feed filters (GET /news/ and the syndication feeds)

export const MAX_FILTER_VALUES = 10;
const topWindows = ['day', 'week', 'month', 'year', 'all'] as const;

/** A parameter that may be given once or repeated (`?tag=a&tag=b`); any of the values matches. */
function repeatable(item: z.ZodType<string, string>, what: string) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .pipe(z.array(item).min(1).max(MAX_FILTER_VALUES, `at most ${MAX_FILTER_VALUES} ${what} values`))
    .transform((v) => [...new Set(v as string[])])
    .optional();
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/i;

/** A date (UTC midnight) or a date-time with a zone (Z or +hh:mm); local times without a zone are refused. */
export function parseIsoInstant(v: string): Date | null {
  const m = ISO_8601.exec(v);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return null;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) return null;
  const t = new Date(m[4] === undefined ? `${m[1]}-${m[2]}-${m[3]}T00:00:00Z` : v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(t.getTime()) ? null : t;
}

const instant = z
  .string()
  .transform((v, c) => {
    const t = parseIsoInstant(v.trim());
    if (!t) {
      c.addIssue({ code: 'custom', message: 'must be an ISO 8601 date (2026-11-01) or date-time with a zone (2026-11-01T12:00:00Z)' });
      return z.NEVER;
    }
    return t;
  })
  .optional()
  .meta({ format: 'date-time' });

/** The article's source: its publisher host (www. and a URL's scheme and path are dropped) or name, case-insensitive. */
export function normalizeSource(v: string): string {
  let s = v.trim().toLowerCase();
  if (/^https?:\/\//.test(s)) {
    try {
      s = new URL(s).hostname;
    } catch {
      /* kept as given */
    }
  }
  return s.replace(/^www\./, '');
}

const tagValue = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(
    z
      .string()
      .max(MAX_YAP_TAG_LENGTH, `must be at most ${MAX_YAP_TAG_LENGTH} characters`)
      .regex(YAP_TAG_PATTERN, 'must be a tag slug: lower-case letters, digits and single hyphens'),
  );

const symbolValue = z
  .string()
  .transform((v) => v.trim())
  .pipe(z.string().regex(/^[\p{L}\p{N}$._+-]{1,32}$/u, 'must be a token symbol: 1 to 32 letters, digits or $ . _ + -'))
  .transform((v) => v.toUpperCase());

const ASSET_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const assetFilter = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(',')).map((x) => x.trim().toLowerCase()))
  .pipe(
    z
      .array(z.string().max(100, 'at most 100 characters').regex(ASSET_ID, 'must be asset ids: lower-case letters, digits and single hyphens, comma-separated'))
      .min(1)
      .max(MAX_FILTER_VALUES, `at most ${MAX_FILTER_VALUES} asset values`),
  )
  .transform((v) => [...new Set(v)])
  .optional();

/** The filter parameters shared by GET /news/ and the syndication feeds (descriptions reach the OpenAPI document). */
export const feedFilterParams = {
  asset: assetFilter.meta({
    description: `Asset ids, comma-separated (\`asset=bitcoin,ethereum\`), up to ${MAX_FILTER_VALUES}: articles tagged with any of these assets (GET /assets/?q= finds ids). An id the registry does not know is 400 unknown_asset naming it.`,
  }),
  token_address: tokenAddress.optional().meta({ description: "Case-insensitive match against the article's token contract addresses (0x + 40 hex, or base58)." }),
  tag: repeatable(tagValue, 'tag').meta({
    description: `Repeatable (\`tag=defi&tag=security\`), up to ${MAX_FILTER_VALUES}: articles with any of these tags. Tag slugs, case-insensitive.`,
  }),
  token_symbol: repeatable(symbolValue, 'token_symbol').meta({
    description: `Repeatable, up to ${MAX_FILTER_VALUES}: articles with any of these token symbols, case-insensitive (\`uni\` matches UNI).`,
  }),
  source: text().max(253, 'must be at most 253 characters').transform(normalizeSource).pipe(z.string().min(1, 'must not be empty')).optional().meta({
    description: "The article's source: its publisher domain (`coindesk.com`; `www.` and a URL's scheme and path are ignored) or source name, case-insensitive exact match.",
  }),
  since: instant.meta({
    description:
      'Only articles published at or after this instant (ISO 8601: a date, taken as 00:00 UTC, or a date-time with Z or an offset). On published_at for status=approved; on created_at (submission time) for status=submitted and all.',
  }),
  until: instant.meta({ description: 'Only articles published before this instant (exclusive; same format and column as since). Must be later than since.' }),
} as const;

export const topWindowParam = z.enum(topWindows).optional().meta({
  description:
    'With sort_type=top only: rank the articles of the last day, week (7 days), month or year (rolling, on the same column as since), or all (default: no window). 400 with another sort_type.',
});
