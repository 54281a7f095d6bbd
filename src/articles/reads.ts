/**
 * Reads of one article as the API answers them, for the REST routes and the MCP tools alike: the
 * full record (GET /news/{id}/) and a page of its yaps (GET /news/{id}/list_yaps). Who may see
 * what follows route-helpers.ts (canSee); signed-in callers also get their own votes.
 */
import { getAddress } from 'viem';
import type { AppDeps } from '../platform/deps.js';
import { toArticleRecord } from './mappers.js';
import { getArticleRecord } from './queries.js';
import { articleNotFound, canSee, isSignedIn, pageLinks, visibleStatus, type CallerCtx, type PageRequest } from './route-helpers.js';
import { myArticleVote } from './vote-queries.js';
import { listYaps, myYapVotes, type YapRow } from './yap-queries.js';

export function toYap(y: YapRow, myVote?: number) {
  const out: Record<string, unknown> = {
    yap_id: y.id,
    article_id: y.article_id,
    text: y.text,
    tags: y.tags,
    created_at: y.created_at.toISOString(),
    score: y.score,
    base_score: y.base_score,
    vote_score: y.vote_score,
    author: { id: y.user_id, username: y.username, ethereum_address: getAddress(y.wallet_address), account_type: y.account_type },
  };
  if (myVote !== undefined) out.my_vote = myVote;
  return out;
}

/** The full record of article `id` for this caller; 404 article_not_found when it may not see it. */
export async function articleRecord(deps: AppDeps, caller: CallerCtx, id: number) {
  const row = await getArticleRecord(deps.db, id);
  if (!row || !canSee(caller, row.status)) throw articleNotFound(id);
  const user = caller.state.user;
  const myVote = user ? await myArticleVote(deps.db, row.id, user.id) : undefined;
  return toArticleRecord(row, { signedIn: isSignedIn(caller), myVote });
}

/** One page of article `id`'s yaps, with next/previous links to the request's neighbouring pages. */
export async function yapPage(deps: AppDeps, caller: CallerCtx, request: PageRequest, id: number, query: { sort: 'top' | 'new' | 'old'; page: number; per_page: number }) {
  await visibleStatus(deps, caller, id);
  const page = query.page;
  const perPage = query.per_page;
  const { rows, count } = await listYaps(deps.db, { articleId: id, sort: query.sort, page, perPage });
  const user = caller.state.user;
  const mine = user
    ? await myYapVotes(
        deps.db,
        user.id,
        rows.map((r) => r.id),
      )
    : null;
  return {
    count,
    ...pageLinks(request, deps.config.PUBLIC_BASE_URL, page, perPage, count),
    results: rows.map((y) => toYap(y, mine ? (mine.get(y.id) ?? 0) : undefined)),
  };
}
