/**
 * Sponsored posts as use cases: an advertiser's paid submission, an editor's decision, and the
 * ad's reaction to its payment's settlement. Every change of an ad's article records its event in
 * the same transaction (news.submitted, news.sponsored, news.killed).
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { articleEvent, recomputeHotScores } from '../articles/index.js';
import { settleRecordedPayment, sweepOrphanedPayments, type Grant, type SettlementDeps, type SettlementResult } from '../payments/index.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { newsEvent, recordEvents } from '../platform/events/log.js';
import { hostOf, normalizeUrl } from '../platform/url/normalize.js';
import { getAd, insertAdArticle, killUnpaidAd, lockAd, markAdPaid, writeAdDecision, type AdEventRow, type AdRow, type AdTier, type SponsoredInfo } from './queries.js';

interface NewAd {
  url: string;
  normalizedUrl: string;
  headline: string;
  source: string;
  tags: string[];
  tier: AdTier;
  isPaid: boolean;
  submittedBy: number | null;
}

/** Insert the ad's article, committed with its purchase; staff get news.submitted, like for any submission. */
export async function insertSponsoredArticle(trx: Transaction<Database>, a: NewAd): Promise<number> {
  const row = await insertAdArticle(trx, a);
  await recordEvents(trx, [newsEvent(articleEvent('news.submitted', row))]);
  return row.id;
}

/**
 * The settlement failed for good: a pending ad is killed and marked sponsored_payment_failed, and its
 * news.killed event is recorded in the caller's transaction (the one that marks the payment failed).
 */
export async function failAdPayment(trx: Transaction<Database>, articleId: number): Promise<AdEventRow | undefined> {
  const killed = await killUnpaidAd(trx, articleId);
  if (killed) await recordEvents(trx, [newsEvent(articleEvent('news.killed', killed, 'submitted'))]);
  return killed;
}

/**
 * Settle a recorded payment (one attempt of `attempts`); the ad it bought becomes paid, or is killed
 * when the payment fails for good. Without a payment id: sweep the payments whose settle job was lost.
 */
export async function settlePayment(deps: SettlementDeps, input: { paymentId?: string; attempt: number; attempts: number }): Promise<SettlementResult> {
  if (!input.paymentId) return { swept: await sweepOrphanedPayments(deps) };
  return settleRecordedPayment(deps, { ...input, paymentId: input.paymentId }, { settled: markAdPaid, failed: failAdPayment });
}

/** Buy a sponsored post: consume the payment and create the pending ad in the payment's transaction. */
export async function buyAd(db: Db, grant: Grant, input: { url: string; headline: string; tags: string[]; tier: AdTier; submittedBy: number | null }): Promise<AdRow> {
  if (grant.kind !== 'payment') throw new DomainError('internal_error', 'ads are always paid');
  const normalizedUrl = normalizeUrl(input.url)!;
  const { articleId } = await grant.commit((trx) =>
    insertSponsoredArticle(trx, {
      ...input,
      normalizedUrl,
      source: hostOf(normalizedUrl).replace(/^www\./, ''),
      isPaid: grant.settled,
    }),
  );
  return (await getAd(db, articleId!))!;
}

type AdDecision = { ok: true; article: AdEventRow } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'not_pending'; adStatus: string } | { ok: false; reason: 'unpaid' };

/**
 * An editor's decision under a row lock. approve: sponsored_pending and paid -> article approved
 * (published now, ranked in the hot feed at once), ad_status sponsored_approved, event
 * news.sponsored. reject: sponsored_pending -> article killed, ad_status sponsored_rejected, event
 * news.killed. The event is recorded in the same transaction.
 */
export async function decideAd(db: Db, input: { id: number; editorId: number; action: 'approve' | 'reject'; hotScoreWindowHours: number }): Promise<AdDecision> {
  return db.transaction().execute(async (trx) => {
    const info = await lockAd(trx, input.id);
    if (!info) return { ok: false, reason: 'not_found' } as const;
    if (info.ad_status !== 'sponsored_pending') return { ok: false, reason: 'not_pending', adStatus: info.ad_status } as const;
    if (input.action === 'approve' && !info.is_paid) return { ok: false, reason: 'unpaid' } as const;
    const approve = input.action === 'approve';
    const next: SponsoredInfo = { ...info, ad_status: approve ? 'sponsored_approved' : 'sponsored_rejected' };
    const article = await writeAdDecision(trx, { id: input.id, editorId: input.editorId, approve, next });
    if (approve) await recomputeHotScores(trx as unknown as Db, { articleIds: [input.id], windowHours: input.hotScoreWindowHours });
    await recordEvents(trx, [newsEvent(articleEvent(approve ? 'news.sponsored' : 'news.killed', article, 'submitted'))]);
    return { ok: true, article } as const;
  });
}

/** decideAd for the editors' routes: the decided ad, or the domain error that explains why not. */
export async function decideAdOrThrow(db: Db, input: { id: number; editorId: number; action: 'approve' | 'reject'; hotScoreWindowHours: number }): Promise<AdRow> {
  const out = await decideAd(db, input);
  if (!out.ok) {
    if (out.reason === 'not_found') throw new DomainError('ad_not_found', `no sponsored post ${input.id}`);
    if (out.reason === 'unpaid') throw new DomainError('ad_not_paid', 'the payment for this ad has not settled yet; approve it once it has');
    throw new DomainError('ad_not_pending', `the ad is ${out.adStatus}; only sponsored_pending ads can be decided`, { ad_status: out.adStatus });
  }
  return (await getAd(db, input.id))!;
}
