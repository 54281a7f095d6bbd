/**
 * Voting on an article. One transaction per vote: the article's row lock first (its counters stay
 * exact under concurrent votes), then the caller's vote row and the counters, and the internal
 * article.voted event (with the voter, for its credibility update) when the vote changed (the feed
 * shows vote_count and votes: its cached pages and their ETags must change). A changed vote
 * schedules the article's hot-score recompute.
 */
import type { AppDeps } from '../platform/deps.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';
import { scheduleHotScore } from './hot-score-service.js';
import { articleNotFound } from './route-helpers.js';
import { castDelta, takesEngagement, type VoteWeight, voteWrite } from './rules/vote.js';
import { addToArticleVotes, lockArticleForVote, storedArticleVote, writeArticleVote } from './vote-queries.js';

type VoteOutcome =
  | { ok: true; weight: VoteWeight; previous: VoteWeight; vote_count: number; votes_cast: number }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'closed'; status: string };

async function castArticleVote(db: Db, articleId: number, userId: number, weight: VoteWeight): Promise<VoteOutcome> {
  return db.transaction().execute(async (trx) => {
    const art = await lockArticleForVote(trx, articleId);
    if (!art) return { ok: false, reason: 'not_found' } as const;
    if (!takesEngagement(art.status)) return { ok: false, reason: 'closed', status: art.status } as const;
    const old = await storedArticleVote(trx, articleId, userId);
    const previous = (old?.weight ?? 0) as VoteWeight;
    await writeArticleVote(trx, voteWrite(old?.weight, weight), { articleId, userId });
    const counts = await addToArticleVotes(trx, articleId, { net: weight - previous, cast: castDelta(previous, weight) });
    if (weight !== previous) await recordEvents(trx, [internalEvent('article.voted', articleId, { user_id: userId })]);
    return { ok: true, weight, previous, ...counts } as const;
  });
}

/**
 * The caller's vote on an article (1 up, -1 down, 0 clears): 404 article_not_found, 409
 * article_closed for killed and retracted articles. Returns the API's vote result.
 */
export async function voteOnArticle(deps: AppDeps, input: { articleId: number; userId: number; weight: VoteWeight }) {
  const { articleId } = input;
  const r = await castArticleVote(deps.db, articleId, input.userId, input.weight);
  if (!r.ok && r.reason === 'not_found') throw articleNotFound(articleId);
  if (!r.ok) throw new DomainError('article_closed', `article ${articleId} is ${r.status} and takes no votes`, { current_status: r.status });
  if (r.previous !== r.weight) await scheduleHotScore(deps, articleId);
  return { article_id: articleId, weight: r.weight, vote_count: r.vote_count, votes: r.votes_cast };
}
