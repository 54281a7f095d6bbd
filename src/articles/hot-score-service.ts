/**
 * Hot-score use cases: the recompute that announces itself (jobs/hot-scores.ts) and the debounced
 * recompute scheduled after a vote, a yap, a yap vote or a counted click.
 */
import type { AppDeps } from '../platform/deps.js';
import type { Db } from '../platform/db.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';
import { recomputeHotScores, type RecomputeScope } from './hot-score-queries.js';
import { debouncedHotScoreJob } from './rules/hot-score.js';

/**
 * recomputeHotScores in a transaction that also records the internal feed.reranked event when any
 * score changed (the relay then retires the feed cache). Returns the number of rows updated.
 */
export async function recomputeAndRecord(db: Db, scope: RecomputeScope): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const updated = await recomputeHotScores(trx, scope);
    const one = scope.articleIds?.length === 1 ? scope.articleIds[0] : null;
    if (updated > 0) await recordEvents(trx, [internalEvent('feed.reranked', one, { updated })]);
    return updated;
  });
}

/**
 * Debounced hot-score recompute of one article (jobs/hot-scores.ts). A failure to enqueue is
 * logged, not raised: the vote or yap is already stored and the scheduled recompute catches up.
 */
export async function scheduleHotScore(deps: AppDeps, articleId: number): Promise<void> {
  const { payload, delayMs } = debouncedHotScoreJob(articleId, Date.now(), deps.config.HOT_SCORE_DEBOUNCE_MS);
  try {
    await deps.queue.enqueue('hot-scores', payload, { delayMs });
  } catch (err) {
    deps.log.warn({ articleId, err: (err as Error).message }, 'could not enqueue hot-score recompute');
  }
}
