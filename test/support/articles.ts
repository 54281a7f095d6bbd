/**
 * Articles seeded straight into a test's database: rows no route would make as the test needs them
 * (published in the past, with a vote count, in a status without its history).
 */
import type { ArticleStatus } from '../../src/articles/rules/state.js';
import type { Db } from '../../src/platform/db.js';
import { hostOf, normalizeUrl } from '../../src/platform/url/normalize.js';
import { slugify } from '../../src/platform/url/slug.js';

let seq = 0;

interface ArticleSeed {
  tags?: string[];
  publishedAt?: Date | null;
  createdAt?: Date;
  clicks?: number;
  status?: ArticleStatus;
  /** The submitter's user id (none by default). */
  submittedBy?: number | null;
  source?: string;
  votesCast?: number;
  voteCount?: number;
  yapCount?: number;
  hotScore?: number;
  sponsored?: Record<string, unknown> | null;
  headline?: string;
}

/** Inserts one article with its own slug and URL; what `a` does not name gets a plain default (approved and published now). */
export async function insertArticle(db: Db, a: ArticleSeed = {}): Promise<number> {
  const n = ++seq;
  const status = a.status ?? 'approved';
  const published = a.publishedAt === undefined ? (status === 'approved' ? new Date() : null) : a.publishedAt;
  const row = await db
    .insertInto('articles')
    .values({
      slug: `a-${n}`,
      headline: a.headline ?? `Article ${n}`,
      url: `https://${a.source ?? 'example.com'}/a/${n}`,
      normalized_url: `https://${a.source ?? 'example.com'}/a/${n}`,
      source: a.source ?? 'example.com',
      status,
      submitted_by: a.submittedBy ?? null,
      tags: a.tags ?? [],
      clicks: a.clicks ?? 0,
      votes_cast: a.votesCast ?? 0,
      vote_count: a.voteCount ?? 0,
      yap_count: a.yapCount ?? 0,
      published_at: published,
      created_at: a.createdAt ?? published ?? new Date(),
      sponsored: a.sponsored ? JSON.stringify(a.sponsored) : null,
      origin: a.sponsored ? 'x402_ad' : 'manual',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // The insert trigger has created its article_hot_scores row (hot_score 0).
  if (a.hotScore !== undefined) await db.updateTable('article_hot_scores').set({ hot_score: a.hotScore }).where('article_id', '=', row.id).execute();
  return row.id;
}

/** A paid ad's `sponsored` column as an approved express ad has it. */
const APPROVED_AD = JSON.stringify({ tier: 'express', ad_status: 'sponsored_approved', is_paid: true });

/**
 * Inserts an article as a submission of `url` makes it (slug from the headline, the URL normalised,
 * its host as source), for the provenance tests that match on them.
 */
export async function insertSubmitted(
  db: Db,
  o: { headline: string; url: string; status: ArticleStatus; createdAt: Date; publishedAt: Date | null; origin?: string; sponsored?: boolean; tags?: string[] },
): Promise<number> {
  const n = normalizeUrl(o.url)!;
  const row = await db
    .insertInto('articles')
    .values({
      slug: slugify(o.headline),
      headline: o.headline,
      url: o.url,
      normalized_url: n,
      source: hostOf(n),
      status: o.status,
      origin: o.origin ?? 'manual',
      tags: o.tags ?? [],
      created_at: o.createdAt,
      published_at: o.publishedAt,
      sponsored: o.sponsored ? APPROVED_AD : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
