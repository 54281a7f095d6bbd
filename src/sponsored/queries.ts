/**
 * Sponsored posts: articles with origin `x402_ad` and a `sponsored` object {tier, ad_status, is_paid}.
 * Ad states (ad_status):
 *   sponsored_pending         paid (is_paid false until the settlement is confirmed), awaiting an editor
 *   sponsored_approved        an editor approved it: the article is approved (published) and news.sponsored went out
 *   sponsored_rejected        an editor rejected it: the article is killed
 *   sponsored_payment_failed  the x402 settlement failed for good: the article is killed, it can never go live
 */
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import { slugify } from '../platform/url/slug.js';
import type { ArticleEventSource } from '../articles/index.js';

export const AD_STATUSES = ['sponsored_pending', 'sponsored_approved', 'sponsored_rejected', 'sponsored_payment_failed'] as const;
type AdStatus = (typeof AD_STATUSES)[number];
export const AD_TIERS = ['express'] as const;
export type AdTier = (typeof AD_TIERS)[number];
const AD_ORIGIN = 'x402_ad';

export interface SponsoredInfo {
  tier: AdTier;
  ad_status: AdStatus;
  is_paid: boolean;
}

const eventColumns = ['id', 'slug', 'status', 'headline', 'origin', 'created_at', 'published_at', 'sponsored'] as const;

/** The columns an article event is built from. */
export type AdEventRow = Omit<ArticleEventSource, 'story_id'>;

const adColumns = [
  'a.id',
  'a.slug',
  'a.headline',
  'a.url',
  'a.source',
  'a.status',
  'a.origin',
  'a.tags',
  'a.sponsored',
  'a.created_at',
  'a.published_at',
  'a.submitted_by',
  'a.reviewed_by',
  'a.reviewed_at',
  'p.id as payment_id',
  'p.state as payment_state',
  'p.method as payment_method',
] as const;

/** Insert the ad's article: submitted, origin x402_ad, ad_status sponsored_pending. */
export async function insertAdArticle(
  trx: Transaction<Database>,
  a: { url: string; normalizedUrl: string; headline: string; source: string; tags: string[]; tier: AdTier; isPaid: boolean; submittedBy: number | null },
): Promise<AdEventRow> {
  const sponsored: SponsoredInfo = { tier: a.tier, ad_status: 'sponsored_pending', is_paid: a.isPaid };
  return trx
    .insertInto('articles')
    .values({
      slug: slugify(a.headline),
      headline: a.headline,
      headline_source: 'supplied',
      url: a.url,
      normalized_url: a.normalizedUrl,
      source: a.source,
      status: 'submitted',
      origin: AD_ORIGIN,
      submitted_by: a.submittedBy,
      tags: a.tags,
      sponsored: JSON.stringify(sponsored),
    })
    .returning(eventColumns)
    .executeTakeFirstOrThrow();
}

export async function getAd(db: Db, id: number) {
  return db
    .selectFrom('articles as a')
    .leftJoin('payments as p', 'p.article_id', 'a.id')
    .select(adColumns)
    .where('a.id', '=', id)
    .where('a.sponsored', 'is not', null)
    .executeTakeFirst();
}
export type AdRow = NonNullable<Awaited<ReturnType<typeof getAd>>>;

export async function listAds(db: Db, opts: { adStatus?: AdStatus; limit: number; offset: number }) {
  let q = db.selectFrom('articles as a').leftJoin('payments as p', 'p.article_id', 'a.id').where('a.sponsored', 'is not', null);
  if (opts.adStatus) q = q.where(sql`a.sponsored ->> 'ad_status'`, '=', opts.adStatus);
  const [rows, count] = await Promise.all([
    q.select(adColumns).orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(opts.limit).offset(opts.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(count.n) };
}

/** The settlement of the ad's payment went through: is_paid = true. */
export async function markAdPaid(db: Db | Transaction<Database>, articleId: number): Promise<void> {
  await db
    .updateTable('articles')
    .set({ sponsored: sql`jsonb_set(sponsored, '{is_paid}', 'true'::jsonb)`, updated_at: sql`now()` })
    .where('id', '=', articleId)
    .where('sponsored', 'is not', null)
    .execute();
}

/** The settlement failed for good: a pending ad is killed and marked sponsored_payment_failed; undefined when it was not pending. */
export async function killUnpaidAd(trx: Transaction<Database>, articleId: number): Promise<AdEventRow | undefined> {
  return trx
    .updateTable('articles')
    .set({
      status: 'killed',
      sponsored: sql`jsonb_set(jsonb_set(sponsored, '{ad_status}', '"sponsored_payment_failed"'::jsonb), '{is_paid}', 'false'::jsonb)`,
      updated_at: sql`now()`,
    })
    .where('id', '=', articleId)
    .where(sql`sponsored ->> 'ad_status'`, '=', 'sponsored_pending')
    .returning(eventColumns)
    .executeTakeFirst();
}

/** The ad's sponsored object, its row locked for a decision; undefined when there is no such ad. */
export async function lockAd(trx: Transaction<Database>, id: number): Promise<SponsoredInfo | undefined> {
  const cur = await trx.selectFrom('articles').select(['id', 'sponsored']).where('id', '=', id).forUpdate().executeTakeFirst();
  return (cur?.sponsored ?? undefined) as SponsoredInfo | undefined;
}

/**
 * An editor's decision on a locked pending ad. approve: the article is approved and published now;
 * reject: it is killed. `next` is the ad's new sponsored object.
 */
export async function writeAdDecision(trx: Transaction<Database>, d: { id: number; editorId: number; approve: boolean; next: SponsoredInfo }): Promise<AdEventRow> {
  return trx
    .updateTable('articles')
    .set({
      status: d.approve ? 'approved' : 'killed',
      sponsored: JSON.stringify(d.next),
      published_at: d.approve ? sql`now()` : sql`published_at`,
      reviewed_by: d.editorId,
      reviewed_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where('id', '=', d.id)
    .returning(eventColumns)
    .executeTakeFirstOrThrow();
}
