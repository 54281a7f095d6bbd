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
import { articleEvent } from '../articles/index.js';
import { slugify } from '../platform/url/slug.js';
import { newsEvent, recordEvents } from '../platform/events/log.js';
import { recomputeHotScores } from '../articles/index.js';

export const AD_STATUSES = ['sponsored_pending', 'sponsored_approved', 'sponsored_rejected', 'sponsored_payment_failed'] as const;
type AdStatus = (typeof AD_STATUSES)[number];
export const AD_TIERS = ['express'] as const;
type AdTier = (typeof AD_TIERS)[number];
const AD_ORIGIN = 'x402_ad';

interface SponsoredInfo {
  tier: AdTier;
  ad_status: AdStatus;
  is_paid: boolean;
}

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

export async function insertSponsoredArticle(
  trx: Transaction<Database>,
  a: { url: string; normalizedUrl: string; headline: string; source: string; tags: string[]; tier: AdTier; isPaid: boolean; submittedBy: number | null },
): Promise<number> {
  const sponsored: SponsoredInfo = { tier: a.tier, ad_status: 'sponsored_pending', is_paid: a.isPaid };
  const row = await trx
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
  // A new submission in the editors' queue, like any other: staff get news.submitted, committed with the purchase.
  await recordEvents(trx, [newsEvent(articleEvent('news.submitted', row))]);
  return row.id;
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

const eventColumns = ['id', 'slug', 'status', 'headline', 'origin', 'created_at', 'published_at', 'sponsored'] as const;

/**
 * The settlement failed for good: a pending ad is killed and marked sponsored_payment_failed, and its
 * news.killed event is recorded in the caller's transaction (the one that marks the payment failed).
 */
export async function failAdPayment(trx: Transaction<Database>, articleId: number) {
  const killed = await trx
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
  if (killed) await recordEvents(trx, [newsEvent(articleEvent('news.killed', killed, 'submitted'))]);
  return killed;
}

type AdDecision =
  | { ok: true; article: { id: number; slug: string; status: string; headline: string; origin: string; created_at: Date; published_at: Date | null; sponsored: unknown } }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'not_pending'; adStatus: string }
  | { ok: false; reason: 'unpaid' };

/**
 * An editor's decision under a row lock. approve: sponsored_pending and paid -> article approved
 * (published now, ranked in the hot feed at once), ad_status sponsored_approved, event
 * news.sponsored. reject: sponsored_pending -> article killed, ad_status sponsored_rejected, event
 * news.killed. The event is recorded in the same transaction.
 */
export async function decideAd(db: Db, input: { id: number; editorId: number; action: 'approve' | 'reject'; hotScoreWindowHours: number }): Promise<AdDecision> {
  return db.transaction().execute(async (trx) => {
    const cur = await trx.selectFrom('articles').select(['id', 'sponsored']).where('id', '=', input.id).forUpdate().executeTakeFirst();
    const info = (cur?.sponsored ?? null) as SponsoredInfo | null;
    if (!cur || !info) return { ok: false, reason: 'not_found' } as const;
    if (info.ad_status !== 'sponsored_pending') return { ok: false, reason: 'not_pending', adStatus: info.ad_status } as const;
    if (input.action === 'approve' && !info.is_paid) return { ok: false, reason: 'unpaid' } as const;
    const approve = input.action === 'approve';
    const next: SponsoredInfo = { ...info, ad_status: approve ? 'sponsored_approved' : 'sponsored_rejected' };
    const article = await trx
      .updateTable('articles')
      .set({
        status: approve ? 'approved' : 'killed',
        sponsored: JSON.stringify(next),
        published_at: approve ? sql`now()` : sql`published_at`,
        reviewed_by: input.editorId,
        reviewed_at: sql`now()`,
        updated_at: sql`now()`,
      })
      .where('id', '=', input.id)
      .returning(eventColumns)
      .executeTakeFirstOrThrow();
    if (approve) await recomputeHotScores(trx as unknown as Db, { articleIds: [input.id], windowHours: input.hotScoreWindowHours });
    await recordEvents(trx, [newsEvent(articleEvent(approve ? 'news.sponsored' : 'news.killed', article, 'submitted'))]);
    return { ok: true, article } as const;
  });
}
