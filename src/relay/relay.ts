/**
 * The relay: moves events from the PostgreSQL event log to the Redis stream and performs their
 * derived side effects, at least once.
 *
 * One pass (relayBatch) reads the event horizon (ids can commit out of order; every id at or below
 * it is final), then runs in one transaction: claim up to `limit` unrelayed events at or below the
 * horizon in event_id order with FOR UPDATE SKIP LOCKED (several relays share the work; one
 * article's events wait while another relay holds an earlier one, so they reach the stream in
 * order), XADD the client-visible ones in one pipeline, perform the batch's side effects once,
 * delete them from the outbox, commit.
 * A crash or a Redis error anywhere before the commit leaves them in the outbox: the next pass
 * sends them again (a duplicate on the stream with the same event_id), never loses them.
 *
 * Side effects, once per batch:
 *  - the feed cache is retired when any event changes what the feed shows (all but news.tsunami);
 *  - news.scheduled: the article's delayed publish-scheduled job is enqueued for its time;
 *  - article.yap_posted: the article's debounced hot-score recompute is enqueued;
 *  - a new submission, a wire item's ingestion, a page title or a headline edit: the item's
 *    story-assign job is enqueued (src/stories/rules/triggers.ts);
 *  - news.submitted, a headline's article.edited, news.tsunami: the item's asset-tag run is enqueued;
 *  - article.voted carrying the voter: that vote's credibility-vote update is enqueued
 *    (src/credibility/rules/vote-triggers.ts);
 *  - webhooks: the public events are matched against the active endpoints and their delivery rows
 *    inserted in this transaction (src/webhooks/fanout.ts); after the commit, the delivery run of
 *    each endpoint that got one is woken (a lost wake-up is found by the webhook-sweep job).
 */
import type { Enqueue } from '../../jobs/define.js';
import { debouncedHotScoreJob } from '../articles/index.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import type { EventPublisher } from '../platform/events/events.js';
import type { Logger } from '../platform/logger.js';
import { stillScheduled } from '../articles/index.js';
import { claimOutbox, eventHorizon, markRelayed, waitingAbove, type OutboxRow } from '../platform/events/log.js';
import { invalidateFeedCache } from '../feed/index.js';
import type { Redis } from '../platform/redis.js';
import { wakeEndpoint } from '../webhooks/index.js';
import { fanOutWebhooks } from '../webhooks/index.js';
import { storyAssignDedupeId, storyAssignments } from '../stories/index.js';
import { assetTagDedupeId, tagTargets } from '../assets/index.js';
import { voteUpdateDedupeId, voteUpdates } from '../credibility/index.js';

export interface RelayDeps {
  config: Pick<Config, 'QUEUE_PREFIX' | 'HOT_SCORE_DEBOUNCE_MS'>;
  db: Db;
  redis: Redis;
  events: EventPublisher;
  log: Logger;
  enqueue: Enqueue;
}

/** Events per pass. */
export const RELAY_BATCH = 500;

interface PassResult {
  relayed: number;
  /** Claimed but left for later: another relay holds an earlier event of the same article. */
  deferred: number;
  /** Committed events wait above the horizon, behind a writer still in flight. */
  waiting: boolean;
}

/** Event types whose relay does not touch the feed cache (wire items are not on the article feed). */
const FEED_NEUTRAL = new Set<string>(['news.tsunami']);

export async function relayBatch(deps: RelayDeps, limit = RELAY_BATCH): Promise<PassResult> {
  // Before the claim's transaction: its statements start after the horizon was read.
  const { horizon, top } = await eventHorizon(deps.db);
  const { result, webhookEndpoints } = await deps.db.transaction().execute(async (trx) => {
    const { rows, deferred } = await claimOutbox(trx, limit, horizon);
    const waiting = horizon < top && rows.length < limit && (await waitingAbove(trx, horizon));
    if (rows.length === 0) return { result: { relayed: 0, deferred, waiting }, webhookEndpoints: [] };
    await deps.events.publishJson(rows.filter((r) => r.visibility !== 'internal').map((r) => ({ e: r.payload, a: r.attrs })));
    await sideEffects(deps, trx as unknown as Db, rows);
    const webhookEndpoints = await fanOutWebhooks(deps.db, trx, rows);
    await markRelayed(
      trx,
      rows.map((r) => r.event_id),
    );
    return { result: { relayed: rows.length, deferred, waiting }, webhookEndpoints };
  });
  // After the commit, so that the run finds its deliveries; never fails the pass (the sweep catches up).
  if (webhookEndpoints.length > 0) {
    await Promise.all(webhookEndpoints.map((id) => wakeEndpoint(deps.enqueue, id))).catch((err: unknown) =>
      deps.log.warn({ err: (err as Error).message, endpoints: webhookEndpoints.length }, 'relay: webhook runs not woken (the webhook sweep will find them)'),
    );
  }
  return result;
}

async function sideEffects(deps: RelayDeps, trx: Db, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.some((r) => !FEED_NEUTRAL.has(r.type))) await invalidateFeedCache(deps.redis, deps.config.QUEUE_PREFIX);

  const scheduled = [...new Set(rows.filter((r) => r.type === 'news.scheduled' && r.article_id !== null).map((r) => r.article_id!))];
  if (scheduled.length > 0) {
    for (const a of await stillScheduled(trx, scheduled)) {
      const at = a.scheduled_for.getTime();
      // The id carries the time: a re-schedule adds a new delayed job; the old one finds the article
      // not yet due (or no longer scheduled) and does nothing. publish-due re-enqueues lost ones.
      await deps.enqueue('publish-scheduled', { article_id: a.id, publish_at: at }, { delayMs: Math.max(0, at - Date.now()) });
    }
  }

  const yapped = [...new Set(rows.filter((r) => r.type === 'article.yap_posted' && r.article_id !== null).map((r) => r.article_id!))];
  for (const id of yapped) {
    const { payload, delayMs } = debouncedHotScoreJob(id, Date.now(), deps.config.HOT_SCORE_DEBOUNCE_MS);
    await deps.enqueue('hot-scores', payload, { delayMs });
  }

  // One add per item, sent together (a batch of submissions is one round of Redis commands, not one each).
  await Promise.all([
    ...storyAssignments(rows).map((a) => deps.enqueue('story-assign', a, { dedupeId: storyAssignDedupeId(a) })),
    ...tagTargets(rows).map((target) => deps.enqueue('asset-tag', target, { dedupeId: assetTagDedupeId(target) })),
    ...voteUpdates(rows).map((v) => deps.enqueue('credibility-vote', v, { dedupeId: voteUpdateDedupeId(v) })),
  ]);
}

/** How many 10 ms waits a run spends on events above the horizon before it leaves them (see relayUntilEmpty). */
const HORIZON_WAITS = 10;

/**
 * Relay until the outbox is empty (or `budgetMs` has passed). Deferred events wait briefly for the
 * relay that holds their article's earlier event. Events above the horizon wait up to about 100 ms
 * for the writer in flight below them; while they wait in the outbox the waker's probes keep
 * waking runs, so they go out soon after that writer commits or rolls back.
 */
export async function relayUntilEmpty(deps: RelayDeps, opts: { budgetMs?: number; limit?: number } = {}): Promise<{ relayed: number; passes: number }> {
  const until = Date.now() + (opts.budgetMs ?? 10_000);
  let relayed = 0;
  let passes = 0;
  let horizonWaits = 0;
  while (Date.now() < until) {
    const r = await relayBatch(deps, opts.limit ?? RELAY_BATCH);
    passes++;
    relayed += r.relayed;
    const full = r.relayed >= (opts.limit ?? RELAY_BATCH);
    // A short pass emptied the outbox up to the horizon (anything committed since woke another run).
    if (r.deferred === 0 && !full && (!r.waiting || horizonWaits++ >= HORIZON_WAITS)) break;
    if (r.relayed === 0) await new Promise((res) => setTimeout(res, 10));
  }
  return { relayed, passes };
}
