/**
 * Which logged events call for a per-vote credibility update (the relay enqueues credibility-vote
 * for each, after the vote committed): article.voted carrying the voter (`user_id`), for the
 * article's vote or, with `yap_id`, the yap's.
 */
interface LoggedEvent {
  type: string;
  article_id: number | null;
  payload: string;
}

interface VoteUpdateRequest {
  kind: 'article_vote' | 'yap_vote';
  target_id: number;
  user_id: number;
}

function requestOf(e: LoggedEvent): VoteUpdateRequest | null {
  if (e.type !== 'article.voted') return null;
  let p: Record<string, unknown>;
  try {
    p = JSON.parse(e.payload) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof p !== 'object' || p === null || typeof p.user_id !== 'number') return null;
  if (typeof p.yap_id === 'number') return { kind: 'yap_vote', target_id: p.yap_id, user_id: p.user_id };
  return e.article_id === null ? null : { kind: 'article_vote', target_id: e.article_id, user_id: p.user_id };
}

/** The vote updates a batch of events calls for, each vote once, in event order. */
export function voteUpdates(events: readonly LoggedEvent[]): VoteUpdateRequest[] {
  const seen = new Set<string>();
  const out: VoteUpdateRequest[] = [];
  for (const e of events) {
    const r = requestOf(e);
    if (!r) continue;
    const id = voteUpdateDedupeId(r);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(r);
  }
  return out;
}

/** The deduplication id of one vote's credibility-vote job. */
export function voteUpdateDedupeId(r: VoteUpdateRequest): string {
  return `credibility-vote-${r.kind}-${r.target_id}-${r.user_id}`;
}
