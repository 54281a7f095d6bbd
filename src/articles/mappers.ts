/**
 * How an article is shaped for the API, in one place: the feed item (GET /news/, feeds, search)
 * and the full record (GET /news/{id}/, editorial responses), which extends the item.
 */
import { getAddress } from 'viem';
import { explainHotTerms, type HotTerms } from './rules/hot-score.js';
import { DECISION_REASON_LABELS } from './rules/moderation.js';
import { isoTime, isoTimeOrNull } from '../platform/iso-time.js';
import type { ArticleItemRow, ArticleRecordRow } from './queries.js';

/** The feed item (spec: Article list item + filtered-feed item). */
export function toArticleItem(r: ArticleItemRow) {
  return {
    id: r.id,
    slug: r.slug,
    headline: r.headline,
    url: r.url,
    status: r.status,
    origin: r.origin,
    source: r.source,
    created_at: isoTime(r.created_at),
    published_at: isoTimeOrNull(r.published_at),
    token_addresses: r.token_addresses,
    token_symbols: r.token_symbols,
    issuer: { name: r.issuer_name, website: r.issuer_website },
    tags: r.tags,
    content_type: r.content_type,
    clicks: r.clicks,
    vote_count: r.vote_count,
    votes: r.votes_cast,
    yap_count: r.yap_count,
    hot_score: r.hot_score,
    sponsored: (r.sponsored as Record<string, unknown> | null) ?? null,
    top_tldr: r.top_tldr
      ? {
          yap_id: r.top_tldr.yap_id,
          text: r.top_tldr.text,
          score: r.top_tldr.score,
          tags: r.top_tldr.tags,
          created_at: isoTime(r.top_tldr.created_at),
          author: { id: r.top_tldr.author_id, username: r.top_tldr.author_username },
        }
      : null,
    story_id: r.story_id ?? null,
    assets: (r.assets ?? []).map((x) => ({ id: x.id, symbol: x.symbol, name: x.name, salience: Number(x.salience), primary: x.primary })),
  };
}

export function toSubmitter(id: number | null, username: string | null, address: string | null) {
  if (id === null || address === null) return null;
  return { id, username, ethereum_address: getAddress(address) };
}

/** Why an article was killed or retracted; the note only for `staff` (editors and staff). */
export function toDecision(r: { decision_reason: string | null; decision_note: string | null; duplicate_of: number | null }, staff: boolean) {
  if (r.decision_reason === null) return null;
  const reason = r.decision_reason as keyof typeof DECISION_REASON_LABELS;
  return { reason, label: DECISION_REASON_LABELS[reason] ?? reason, duplicate_of: r.duplicate_of, ...(staff ? { note: r.decision_note } : {}) };
}

/** The full single-article record. `submitted_by` and `my_vote` only for signed-in callers; `decision.note` only for `staff`. */
export function toArticleRecord(r: ArticleRecordRow, opts: { signedIn: boolean; myVote?: -1 | 0 | 1; staff?: boolean }) {
  const terms = r.hot_terms as HotTerms | null;
  const record: Record<string, unknown> = {
    ...toArticleItem(r),
    normalized_url: r.normalized_url,
    headline_source: r.headline_source,
    updated_at: isoTime(r.updated_at),
    scheduled_for: isoTimeOrNull(r.scheduled_for),
    reviewed_at: isoTimeOrNull(r.reviewed_at),
    reviewed_by: r.reviewer_id !== null ? { id: r.reviewer_id, username: r.reviewer_username } : null,
    hot_terms: terms ? { ...terms, computed_at: isoTimeOrNull(r.hot_computed_at), explanation: explainHotTerms(terms) } : null,
    decision: toDecision(r, opts.staff ?? false),
  };
  if (opts.signedIn) record.submitted_by = toSubmitter(r.submitter_id, r.submitter_username, r.submitter_address);
  if (opts.myVote !== undefined) record.my_vote = opts.myVote;
  return record;
}
