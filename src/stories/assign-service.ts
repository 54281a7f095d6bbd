/**
 * The assigner's use case: assign a batch of articles and wire items to stories, in the given
 * order, in one transaction under the assigner's advisory lock, and record one `story.assigned`
 * event per assignment through the event log in that transaction.
 *
 * The result is the one of assigning the items one at a time in that order: each item's candidates
 * are read after the previous item's assignment was written, and the word counts that weigh the
 * words are those of the items before it (read once, then counted on in memory for the batch).
 *
 * Exactly once: a retried job finds its item assigned with the same headline words and changes
 * nothing; a transaction killed before its commit left nothing, and its jobs' retries assign. A
 * changed headline (page title, an editor's edit) re-assigns the item, unless its story is locked
 * by an editor: the assigner never undoes an editor's merge or split.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import { internalEvent, recordEvents, type EventInput } from '../platform/events/log.js';
import { addWordCounts, candidates, joinStory, lockItems, openStory, type LockedItem } from './assign-queries.js';
import { promoteCorroborated } from './corroboration.js';
import { deleteMember, lockAssigner, refreshStory, wordCounts, type ItemKind } from './queries.js';
import { chooseStory } from './rules/assign.js';
import { corroborationReached } from './rules/corroboration.js';
import { itemFeatures } from './rules/features.js';
import { copyKeys, LOOKUP_WINDOW_MS, lookupWords, MAX_CANDIDATES, MAX_MEMBERS_COMPARED, weightFrom } from './rules/lookup.js';
import { plausibleTime } from './rules/time.js';

export interface ItemRef {
  kind: ItemKind;
  id: number;
}

export type AssignOutcome =
  | { outcome: 'assigned'; storyId: number; created: boolean; previousStoryId: number | null; promotedArticleId: number | null }
  | { outcome: 'unchanged'; storyId: number }
  | { outcome: 'skipped'; reason: 'not_found' | 'sponsored' };

export interface AssignOptions {
  /** WIRE_PROMOTE_MIN_SOURCES for the corroboration rule (corroboration.ts); 0 or absent: off. */
  promoteMinSources?: number;
}

/** What one batch's transaction knows: word counts (read once, counted on) and the events to record. */
interface BatchState {
  trx: Transaction<Database>;
  now: Date;
  opts: AssignOptions;
  df: Map<string, number>;
  items: number;
  newWords: Map<string, number>;
  newItems: number;
  events: EventInput[];
}

const refKey = (r: ItemRef) => `${r.kind}:${r.id}`;

/** Assign `refs` in order, in one transaction; one outcome per ref (a repeated ref is unchanged the second time). */
export async function assignStoryItems(db: Db, refs: readonly ItemRef[], now: Date = new Date(), opts: AssignOptions = {}): Promise<AssignOutcome[]> {
  return db.transaction().execute(async (trx) => {
    await lockAssigner(trx);
    const locked = new Map<string, LockedItem>();
    for (const kind of ['article', 'wire'] as const) {
      const ids = [...new Set(refs.filter((r) => r.kind === kind).map((r) => r.id))];
      for (const it of await lockItems(trx, kind, ids)) locked.set(refKey(it), it);
    }
    const features = new Map(
      [...locked]
        .filter(([, it]) => !it.excluded)
        .map(([k, it]) => [k, itemFeatures({ title: it.title, url: it.url, source: it.source, at: plausibleTime(it.claimedAt, it.observedAt, now).getTime(), text: it.text })]),
    );
    const batchWords = [...new Set([...features.values()].flatMap((f) => f.words))];
    const { counts, items } = await wordCounts(trx, batchWords);
    for (const w of batchWords) if (!counts.has(w)) counts.set(w, 0);
    const st: BatchState = { trx, now, opts, df: counts, items, newWords: new Map(), newItems: 0, events: [] };
    const outcomes: AssignOutcome[] = [];
    for (const ref of refs) outcomes.push(await assignOne(st, locked.get(refKey(ref)), features.get(refKey(ref))));
    await addWordCounts(trx, st.newItems, st.newWords);
    await recordEvents(trx, st.events);
    return outcomes;
  });
}

async function assignOne(st: BatchState, item: LockedItem | undefined, f: ReturnType<typeof itemFeatures> | undefined): Promise<AssignOutcome> {
  if (!item) return { outcome: 'skipped', reason: 'not_found' };
  if (item.excluded || !f) return { outcome: 'skipped', reason: 'sponsored' };
  const { trx, now, opts } = st;
  const current = item.current;
  if (current) {
    if (current.titleKey === f.titleKey || current.locked) return { outcome: 'unchanged', storyId: current.storyId };
    await deleteMember(trx, item.kind, item.id);
    await refreshStory(trx, current.storyId);
  }
  const dfOf = (w: string): number => st.df.get(w) ?? 0;
  const keys = [...copyKeys(f), ...lookupWords(f, dfOf)];
  const rows = await candidates(trx, keys, new Date(f.at - LOOKUP_WINDOW_MS), MAX_CANDIDATES, MAX_MEMBERS_COMPARED - 1);
  await knowWords(
    st,
    rows.flatMap((r) => r.members.flatMap((m) => m.words)),
  );
  const decision = chooseStory(
    f,
    rows.map((r) => ({ id: r.id, lastSeenAt: r.lastSeenAt.getTime(), members: r.members })),
    weightFrom(dfOf, Math.max(st.items, 1)),
  );
  const member = {
    kind: item.kind,
    id: item.id,
    headline: item.title,
    url: item.url,
    source: item.source?.trim() || f.sourceKey,
    seenAt: new Date(f.at),
    copy: decision.copy,
    features: f,
    keys: [...copyKeys(f), ...f.words],
  };
  const sourcesBefore = decision.storyId === null ? 0 : (rows.find((r) => r.id === decision.storyId)?.sourceCount ?? 0);
  const storyId = decision.storyId ?? (await openStory(trx, member));
  const sourcesAfter = decision.storyId === null ? (member.copy ? 0 : 1) : await joinStory(trx, storyId, member);
  // An item is counted in the word counts once, when first assigned.
  if (!current) countItem(st, f.words);
  // The item is current now: a repeat of it in this batch is unchanged.
  item.current = { storyId, titleKey: f.titleKey, locked: false };
  const corroborated = corroborationReached({ kind: item.kind, sourcesBefore, sourcesAfter, minSources: opts.promoteMinSources ?? 0, observedAt: item.observedAt, now });
  let promotedArticleId: number | null = null;
  if (corroborated) {
    // The promotion records its own events: those of earlier assignments go first.
    await recordEvents(trx, st.events.splice(0));
    promotedArticleId = await promoteCorroborated(trx, storyId, now);
  }
  const previousStoryId = current?.storyId ?? null;
  const payload = {
    kind: item.kind,
    item_id: item.id,
    story_id: storyId,
    previous_story_id: previousStoryId,
    ...(promotedArticleId === null ? {} : { promoted_article_id: promotedArticleId }),
  };
  st.events.push(internalEvent('story.assigned', item.kind === 'article' ? item.id : null, payload));
  return { outcome: 'assigned', storyId, created: decision.storyId === null, previousStoryId, promotedArticleId };
}

/**
 * Read the document frequencies of `words` not known to the batch yet. The similarity weighs the
 * words of both headlines, so the candidates' words need their counts as much as the item's.
 */
async function knowWords(st: BatchState, words: readonly string[]): Promise<void> {
  const unknown = [...new Set(words)].filter((w) => !st.df.has(w));
  if (unknown.length === 0) return;
  const { counts } = await wordCounts(st.trx, unknown);
  for (const w of unknown) st.df.set(w, counts.get(w) ?? 0);
}

function countItem(st: BatchState, words: readonly string[]): void {
  st.items += 1;
  st.newItems += 1;
  for (const w of new Set(words)) {
    st.df.set(w, (st.df.get(w) ?? 0) + 1);
    st.newWords.set(w, (st.newWords.get(w) ?? 0) + 1);
  }
}
