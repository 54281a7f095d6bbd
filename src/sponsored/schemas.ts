/** The sponsored post's wire shapes: the ad as answered and the purchase body (routes and the x402 offer share them). */
import { z } from 'zod';
import { normalizeUrl } from '../platform/url/normalize.js';
import { text } from '../platform/http/schemas.js';
import { AD_STATUSES, AD_TIERS } from './queries.js';

export const sponsoredObject = z
  .object({
    tier: z.enum(AD_TIERS).meta({ description: 'Placement tier; `express` is the only tier' }),
    ad_status: z.enum(AD_STATUSES).meta({ description: 'See the ad states above' }),
    is_paid: z.boolean().meta({ description: 'The payment has settled' }),
  })
  .meta({ id: 'Sponsored', description: 'The sponsored object of feed items and events' });

export const adSchema = z
  .object({
    article_id: z.number().int(),
    slug: z.string(),
    headline: z.string(),
    url: z.string(),
    source: z.string(),
    status: z.string().meta({ description: 'Article status: submitted (pending), approved (live), killed (rejected or payment failed)' }),
    origin: z.literal('x402_ad'),
    tags: z.array(z.string()),
    sponsored: sponsoredObject,
    created_at: z.string().meta({ format: 'date-time' }),
    published_at: z.string().nullable().meta({ format: 'date-time' }),
    payment: z
      .object({
        id: z.string(),
        method: z.enum(['x402', 'mainnet_transfer']),
        state: z.enum(['verified', 'settling', 'settled', 'failed']),
        status_url: z.string(),
      })
      .nullable(),
  })
  .meta({ id: 'SponsoredPost' });

const tagSlug = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(
    z
      .string()
      .max(32)
      .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a slug: lower-case letters, digits and single hyphens'),
  );

export const buyBody = z.object({
  url: z
    .string()
    .trim()
    .max(2048, 'must be at most 2048 characters')
    .refine((v) => /^https?:\/\//i.test(v) && normalizeUrl(v) !== null, 'must be an absolute http:// or https:// URL'),
  headline: text('display')
    .transform((v) => v.replace(/\s+/g, ' ').trim())
    .pipe(z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters')),
  tags: z
    .array(tagSlug)
    .max(10, 'at most 10 tags')
    .default([])
    .transform((t) => [...new Set(t)]),
  tier: z.enum(AD_TIERS).default('express'),
});
