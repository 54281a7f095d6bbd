/**
 * The stories use cases. assignStoryItem is the worker's (jobs/story-assign.ts): assign one
 * article or wire item to a story in one transaction, reading the assigner's state from
 * PostgreSQL (the worker keeps none), and record story.assigned through the event log.
 *
 * Exactly once: the transaction takes the item's row lock and the assigner's advisory lock, then
 * reads the item's membership. A retried job finds the item already assigned with the same
 * headline words and changes nothing; a job killed before its commit left nothing, and its retry
 * assigns. A changed headline (page title, an editor's edit) re-assigns the item, unless its
 * story is locked by an editor: the assigner never undoes an editor's merge or split.
 */
import type { Db } from '../platform/db.js';
import { isoTime } from '../platform/iso-time.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';
import { promoteCorroborated } from './corroboration.js';
import { storySourceCount } from './promotion-queries.js';
import { chooseStory } from './rules/assign.js';
import { corroborationReached } from './rules/corroboration.js';
import { itemFeatures, type ItemFeatures } from './rules/features.js';
import { copyKeys, LOOKUP_WINDOW_MS, lookupWords, MAX_CANDIDATES, MAX_MEMBERS_COMPARED, weightFrom } from './rules/lookup.js';
import { plausibleTime } from './rules/time.js';
import {
  candidateIds,
  candidateStories,
  countWords,
  deleteMember,
  indexKeys,
  insertMember,
  insertStory,
  lockAssigner,
  lockItem,
  memberOf,
  refreshStory,
  setItemStory,
  storyById,
  storyLocked,
  storyMembers,
  storyPage,
  unassignedItems,
  type StoryListFilter,
  wordCounts,
  type ItemKind,
  type ItemSource,
} from './queries.js';

type AssignOutcome =
  | { outcome: 'assigned'; storyId: number; created: boolean; previousStoryId: number | null; promotedArticleId: number | null }
  | { outcome: 'unchanged'; storyId: number }
  | { outcome: 'skipped'; reason: 'not_found' | 'sponsored' };

/** promoteMinSources: WIRE_PROMOTE_MIN_SOURCES for the corroboration rule (corroboration.ts); 0 or absent: off. */
export async function assignStoryItem(db: Db, kind: ItemKind, id: number, now: Date = new Date(), opts: { promoteMinSources?: number } = {}): Promise<AssignOutcome> {
  return db.transaction().execute(async (trx) => {
    const item = await lockItem(trx, kind, id);
    if (!item) return { outcome: 'skipped', reason: 'not_found' } as const;
    if (item.excluded) return { outcome: 'skipped', reason: 'sponsored' } as const;
    await lockAssigner(trx);
    const at = plausibleTime(item.claimedAt, item.observedAt, now);
    const f = itemFeatures({ title: item.title, url: item.url, source: item.source, at: at.getTime(), text: item.text });
    const current = await memberOf(trx, kind, id);
    if (current) {
      const old = current.features as ItemFeatures;
      if (old.titleKey === f.titleKey || (await storyLocked(trx, current.story_id))) return { outcome: 'unchanged', storyId: current.story_id } as const;
      await deleteMember(trx, kind, id);
      await refreshStory(trx, current.story_id);
    }
    const decision = await decide(trx, f);
    // The corroboration rule's counts are read only when it can fire (a wire item, the rule on).
    const counting = kind === 'wire' && (opts.promoteMinSources ?? 0) > 0;
    const sourcesBefore = counting && decision.storyId !== null ? await storySourceCount(trx, decision.storyId) : 0;
    const storyId = decision.storyId ?? (await insertStory(trx, item.title, at));
    await insertMember(trx, { kind, id, storyId, headline: item.title, url: item.url, source: sourceName(item, f), seenAt: at, copy: decision.copy, features: f });
    await indexKeys(trx, storyId, [...copyKeys(f), ...f.words], at);
    if (!current) await countWords(trx, f.words);
    await refreshStory(trx, storyId);
    await setItemStory(trx, kind, id, storyId);
    const previousStoryId = current?.story_id ?? null;
    const corroborated = corroborationReached({
      kind,
      sourcesBefore,
      sourcesAfter: counting ? await storySourceCount(trx, storyId) : 0,
      minSources: opts.promoteMinSources ?? 0,
      observedAt: item.observedAt,
      now,
    });
    const promotedArticleId = corroborated ? await promoteCorroborated(trx, storyId, now) : null;
    const payload = { kind, item_id: id, story_id: storyId, previous_story_id: previousStoryId, ...(promotedArticleId === null ? {} : { promoted_article_id: promotedArticleId }) };
    await recordEvents(trx, [internalEvent('story.assigned', kind === 'article' ? id : null, payload)]);
    return { outcome: 'assigned', storyId, created: decision.storyId === null, previousStoryId, promotedArticleId } as const;
  });
}

async function decide(trx: Db, f: ItemFeatures) {
  const { counts, items } = await wordCounts(trx, f.words);
  const df = (w: string): number => counts.get(w) ?? 0;
  const keys = [...copyKeys(f), ...lookupWords(f, df)];
  const ids = await candidateIds(trx, keys, new Date(f.at - LOOKUP_WINDOW_MS), MAX_CANDIDATES);
  const rows = await candidateStories(trx, ids, MAX_MEMBERS_COMPARED - 1);
  const candidates = rows.map((r) => ({ id: r.id, lastSeenAt: r.lastSeenAt.getTime(), members: r.features }));
  return chooseStory(f, candidates, weightFrom(df, Math.max(items, 1)));
}

function sourceName(item: ItemSource, f: ItemFeatures): string {
  return item.source?.trim() || f.sourceKey;
}

type StoryRow = NonNullable<Awaited<ReturnType<typeof storyById>>>;

function toStory(r: StoryRow) {
  return {
    id: r.id,
    headline: r.headline,
    first_seen_at: isoTime(r.first_seen_at),
    last_seen_at: isoTime(r.last_seen_at),
    member_count: r.member_count,
    source_count: r.source_count,
    locked: r.locked,
  };
}

/** A page of stories for GET /stories/. */
export async function readStoryPage(db: Db, f: StoryListFilter) {
  const { rows, count } = await storyPage(db, f);
  return { count, results: rows.map(toStory) };
}

/** One story with its public members in time order (GET /stories/{id}/), or undefined. */
export async function readStory(db: Db, id: number) {
  const story = await storyById(db, id);
  if (!story) return undefined;
  const members = await storyMembers(db, id);
  return {
    ...toStory(story),
    members: members.map((m, i) => ({
      kind: m.item_kind,
      id: m.item_id,
      headline: m.article_headline ?? m.headline,
      url: m.article_url ?? m.url,
      source: m.source,
      first_seen_at: isoTime(m.seen_at),
      copy: m.copy_of_member,
      first: i === 0,
    })),
  };
}

/**
 * Assign every unassigned article and wire item seen since `since`, oldest first, in batches.
 * Resumable: what an interrupted run assigned is skipped by the next one. Items that cannot be
 * assigned (deleted meanwhile) are left out of the count; the run stops when a batch assigns none.
 */
export async function backfillStories(db: Db, since: Date, opts: { batch: number; onBatch?: (assigned: number) => void }): Promise<number> {
  let total = 0;
  for (;;) {
    const items = await unassignedItems(db, since, opts.batch);
    let assigned = 0;
    for (const it of items) if ((await assignStoryItem(db, it.kind, it.id)).outcome === 'assigned') assigned += 1;
    total += assigned;
    opts.onBatch?.(total);
    if (items.length < opts.batch || assigned === 0) return total;
  }
}
