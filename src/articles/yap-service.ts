/**
 * Posting a yap and voting on one. Each runs in one transaction that holds the parent row's lock
 * (the article's for a yap, the yap's for a yap vote), so yap_count and vote_score stay exact, and
 * records its internal event in the same transaction: article.yap_posted (the relay retires the feed
 * cache, whose items show yap_count and top_tldr, and schedules the article's hot-score recompute),
 * article.voted with the yap id when a yap vote changed (the yap's score may change top_tldr).
 */
import type { AppDeps } from '../platform/deps.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';
import { scheduleHotScore } from './hot-score-service.js';
import { articleStatus } from './queries.js';
import { articleNotFound } from './route-helpers.js';
import { takesEngagement, type VoteWeight, voteWrite } from './rules/vote.js';
import { baseScoreFor } from './rules/yap.js';
import { addToYapScore, countYapOn, insertYapRow, lockYapForVote, storedYapVote, writeYapVote, yapAuthor, type YapRow } from './yap-queries.js';

type PostYapOutcome = { ok: true; yap: YapRow } | { ok: false; reason: 'not_found' } | { ok: false; reason: 'closed'; status: string };

type YapVoteOutcome =
  | { ok: true; weight: VoteWeight; vote_score: number; score: number }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'own_yap' }
  | { ok: false; reason: 'closed'; status: string };

function closed(id: number, status: string): DomainError {
  return new DomainError('article_closed', `article ${id} is ${status} and takes no more yaps or votes`, { current_status: status });
}

async function insertYap(db: Db, input: { articleId: number; userId: number; text: string; tags: string[] }): Promise<PostYapOutcome> {
  return db.transaction().execute(async (trx) => {
    if (!(await countYapOn(trx, input.articleId))) {
      const status = await articleStatus(trx, input.articleId);
      return status !== undefined ? ({ ok: false, reason: 'closed', status } as const) : ({ ok: false, reason: 'not_found' } as const);
    }
    const author = await yapAuthor(trx, input.userId);
    const y = await insertYapRow(trx, { ...input, baseScore: baseScoreFor(author.account_type) });
    await recordEvents(trx, [internalEvent('article.yap_posted', input.articleId, { yap_id: y.id })]);
    const yap = { ...y, score: y.score ?? y.base_score + y.vote_score, username: author.username, wallet_address: author.wallet_address, account_type: author.account_type };
    return { ok: true, yap } as const;
  });
}

/** Post a yap: 404 article_not_found, 409 article_closed for killed and retracted articles. Returns the stored yap. */
export async function postYap(deps: AppDeps, input: { articleId: number; userId: number; text: string; tags: string[] }): Promise<YapRow> {
  const r = await insertYap(deps.db, input);
  if (!r.ok && r.reason === 'not_found') throw articleNotFound(input.articleId);
  if (!r.ok) throw closed(input.articleId, r.status);
  return r.yap;
}

/** Vote on a yap of the given article (1, -1, 0 clears). Its author may not. */
async function castYapVote(db: Db, input: { articleId: number; yapId: number; userId: number; weight: VoteWeight }): Promise<YapVoteOutcome> {
  return db.transaction().execute(async (trx) => {
    const yap = await lockYapForVote(trx, input.articleId, input.yapId);
    if (!yap) return { ok: false, reason: 'not_found' } as const;
    if (yap.user_id === input.userId) return { ok: false, reason: 'own_yap' } as const;
    if (!takesEngagement(yap.status)) return { ok: false, reason: 'closed', status: yap.status } as const;
    const old = await storedYapVote(trx, input.yapId, input.userId);
    const previous = old?.weight ?? 0;
    await writeYapVote(trx, voteWrite(old?.weight, input.weight), input);
    const r = await addToYapScore(trx, input.yapId, input.weight - previous);
    if (input.weight !== previous) await recordEvents(trx, [internalEvent('article.voted', input.articleId, { yap_id: input.yapId, user_id: input.userId })]);
    return { ok: true, weight: input.weight, vote_score: r.vote_score, score: r.score ?? 0 } as const;
  });
}

/**
 * The caller's vote on a yap: 404 yap_not_found, 403 cannot_vote_own_yap, 409 article_closed.
 * Schedules the article's hot-score recompute; returns the API's vote result.
 */
export async function voteOnYap(deps: AppDeps, input: { articleId: number; yapId: number; userId: number; weight: VoteWeight }) {
  const r = await castYapVote(deps.db, input);
  if (!r.ok) {
    if (r.reason === 'not_found') throw new DomainError('yap_not_found', `yap ${input.yapId} not found on article ${input.articleId}`);
    if (r.reason === 'own_yap') throw new DomainError('cannot_vote_own_yap', 'you cannot vote on your own yap');
    throw closed(input.articleId, r.status);
  }
  await scheduleHotScore(deps, input.articleId);
  return { yap_id: input.yapId, weight: r.weight, vote_score: r.vote_score, score: r.score };
}
