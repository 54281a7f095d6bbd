/**
 * The assigner's use case: assign a batch of articles and wire items to stories, in the given
 * order, in one transaction under the assigner's advisory lock, and record one `story.assigned`
 * event per assignment through the event log in that transaction.
 *
 * The result is the one of assigning the items one at a time in that order. The batch reads the
 * stored state its items look up in a few statements (the word counts of its words, the postings of
 * their lookup keys, the compared members of the stories those name) and decides item after item
 * in memory (rules/batch-state.ts), each assignment laid over that view before the next item is
 * decided, and each item weighed with the word counts of the items before it. What the view lacks
 * when an item meets it (a lookup word chosen by counts the batch changed, a story that became a
 * candidate through the batch's own assignments) is read then. The assignments are written at the
 * end in a few set-based statements, or earlier when something reads the stored state: before a
 * corroboration promotion, and before a re-assignment removes a membership (the view is read anew
 * after that).
 *
 * Exactly once: a retried job finds its item assigned with the same headline words and changes
 * nothing; a transaction killed before its commit left nothing, and its jobs' retries assign. A
 * changed headline (page title, an editor's edit) re-assigns the item, unless its story is locked
 * by an editor: the assigner never undoes an editor's merge or split.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import { internalEvent, recordEvents } from '../platform/events/log.js';
import { addWordCounts, lockItems, newStoryIds, postingsOf, storiesOf, writeAssignments, type LockedItem, type NewMember } from './assign-queries.js';
import { promoteCorroborated } from './corroboration.js';
import { deleteMember, lockAssigner, refreshStory, wordCounts, type ItemKind } from './queries.js';
import { chooseStory } from './rules/assign.js';
import { corroborationReached } from './rules/corroboration.js';
import { BatchStoryView, NEW_STORY_BASE, newStoryId } from './rules/batch-state.js';
import { itemFeatures, type ItemFeatures } from './rules/features.js';
import { LOOKUP_WINDOW_MS, lookupKeys, MAX_MEMBERS_COMPARED, memberKeys, weightFrom } from './rules/lookup.js';
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

/** What one batch's transaction knows: the view of the stored state, word counts (read once, counted on), and what is still to write. */
interface BatchState {
  trx: Transaction<Database>;
  now: Date;
  opts: AssignOptions;
  /** The earliest lookup time of the batch: postings are read from then on. */
  since: Date;
  view: BatchStoryView;
  df: Map<string, number>;
  items: number;
  newWords: Map<string, number>;
  newItems: number;
  /** Assignments not written yet (story ids may be temporary), the stories they opened, their events. */
  members: NewMember[];
  opened: { id: number; headline: string; seenAt: Date }[];
  events: { kind: ItemKind; itemId: number; storyId: number; previousStoryId: number | null; promotedArticleId: number | null }[];
  /** Temporary story id -> the id the sequence gave it. */
  ids: Map<number, number>;
}

const refKey = (r: ItemRef) => `${r.kind}:${r.id}`;
const MEMBERS_READ = MAX_MEMBERS_COMPARED - 1;

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
    const earliest = Math.min(now.getTime(), ...[...features.values()].map((f) => f.at));
    const st: BatchState = {
      trx,
      now,
      opts,
      since: new Date(earliest - LOOKUP_WINDOW_MS),
      view: new BatchStoryView(),
      df: counts,
      items,
      newWords: new Map(),
      newItems: 0,
      members: [],
      opened: [],
      events: [],
      ids: new Map(),
    };
    await prefetch(st, [...features.values()]);
    const outcomes: AssignOutcome[] = [];
    for (const ref of refs) outcomes.push(await assignOne(st, locked.get(refKey(ref)), features.get(refKey(ref))));
    await flush(st);
    await addWordCounts(trx, st.newItems, st.newWords);
    return outcomes.map((o) => (o.outcome === 'skipped' ? o : { ...o, storyId: storyIdOf(st, o.storyId) }));
  });
}

/** Read what the batch's items look up, as the state is before the batch: three statements. */
async function prefetch(st: BatchState, items: readonly ItemFeatures[]): Promise<void> {
  const dfOf = (w: string): number => st.df.get(w) ?? 0;
  const keysOf = items.map((f) => ({ f, keys: lookupKeys(f, dfOf) }));
  await readPostings(st, [...new Set(keysOf.flatMap((k) => k.keys))]);
  await readStories(st, [...new Set(keysOf.flatMap(({ f, keys }) => st.view.ranked(keys, f.at)))]);
}

async function readPostings(st: BatchState, keys: readonly string[]): Promise<void> {
  const missing = st.view.missingKeys(keys);
  if (missing.length > 0) st.view.addPostings(missing, await postingsOf(st.trx, missing, st.since));
}

/** Read the stories of `ids` not in the view, and the word counts of their members' words (the similarity weighs both headlines' words). */
async function readStories(st: BatchState, ids: readonly number[]): Promise<void> {
  const missing = st.view.missingStories(ids);
  if (missing.length === 0) return;
  const stories = await storiesOf(st.trx, missing, MEMBERS_READ, st.opts.promoteMinSources ?? 0);
  const found = new Set(stories.map((s) => s.id));
  // A story deleted meanwhile is remembered without members: no candidate, and not read again.
  st.view.addStories([...stories, ...missing.filter((id) => !found.has(id)).map((id) => ({ id, lastSeenAt: 0, sourceCount: 0, sourceKeys: null, members: [] }))]);
  const unknown = new Set<string>();
  for (const s of stories) for (const m of s.members) for (const w of m.features.words) if (!st.df.has(w)) unknown.add(w);
  if (unknown.size === 0) return;
  const { counts } = await wordCounts(st.trx, [...unknown]);
  for (const w of unknown) st.df.set(w, counts.get(w) ?? 0);
}

const storyIdOf = (st: BatchState, id: number): number => (id > NEW_STORY_BASE ? st.ids.get(id)! : id);

/** Write the batch's assignments so far and record their events (earlier events before later ones). */
async function flush(st: BatchState): Promise<void> {
  const fresh = await newStoryIds(st.trx, st.opened.length);
  st.opened.forEach((o, i) => st.ids.set(o.id, fresh[i]!));
  await writeAssignments(
    st.trx,
    st.opened.map((o) => ({ ...o, id: storyIdOf(st, o.id) })),
    st.members.map((m) => ({ ...m, storyId: storyIdOf(st, m.storyId) })),
  );
  await recordEvents(
    st.trx,
    st.events.map((e) => {
      const payload = {
        kind: e.kind,
        item_id: e.itemId,
        story_id: storyIdOf(st, e.storyId),
        previous_story_id: e.previousStoryId,
        ...(e.promotedArticleId === null ? {} : { promoted_article_id: e.promotedArticleId }),
      };
      return internalEvent('story.assigned', e.kind === 'article' ? e.itemId : null, payload);
    }),
  );
  st.opened = [];
  st.members = [];
  st.events = [];
}

async function assignOne(st: BatchState, item: LockedItem | undefined, f: ItemFeatures | undefined): Promise<AssignOutcome> {
  if (!item) return { outcome: 'skipped', reason: 'not_found' };
  if (item.excluded || !f) return { outcome: 'skipped', reason: 'sponsored' };
  const { trx, now, opts } = st;
  const current = item.current;
  if (current) {
    if (current.titleKey === f.titleKey || current.locked) return { outcome: 'unchanged', storyId: current.storyId };
    // Removing a membership changes stored stories the view holds: write, remove, read anew.
    await flush(st);
    await deleteMember(trx, item.kind, item.id);
    await refreshStory(trx, current.storyId);
    st.view = new BatchStoryView();
  }
  const dfOf = (w: string): number => st.df.get(w) ?? 0;
  const keys = lookupKeys(f, dfOf);
  await readPostings(st, keys);
  const ranked = st.view.ranked(keys, f.at);
  await readStories(st, ranked);
  const decision = chooseStory(f, st.view.candidates(ranked), weightFrom(dfOf, Math.max(st.items, 1)));
  const storyId = decision.storyId ?? newStoryId(st.ids.size + st.opened.length + 1);
  const seenAt = new Date(f.at);
  const member: NewMember = {
    kind: item.kind,
    id: item.id,
    storyId,
    headline: item.title,
    url: item.url,
    source: item.source?.trim() || f.sourceKey,
    seenAt,
    copy: decision.copy,
    features: f,
    keys: memberKeys(f),
  };
  const sourcesBefore = decision.storyId === null ? 0 : (st.view.sources(storyId) ?? st.view.storedSources(storyId));
  st.view.add(storyId, { kind: item.kind, id: item.id, seenAt: f.at, features: f }, member.keys, decision.copy);
  const sourcesAfter = decision.storyId === null ? (member.copy ? 0 : 1) : (st.view.sources(storyId) ?? sourcesBefore);
  st.members.push(member);
  if (decision.storyId === null) st.opened.push({ id: storyId, headline: item.title, seenAt });
  // An item is counted in the word counts once, when first assigned.
  if (!current) countItem(st, f.words);
  // The item is current now: a repeat of it in this batch is unchanged.
  item.current = { storyId, titleKey: f.titleKey, locked: false };
  const corroborated = corroborationReached({ kind: item.kind, sourcesBefore, sourcesAfter, minSources: opts.promoteMinSources ?? 0, observedAt: item.observedAt, now });
  let promotedArticleId: number | null = null;
  if (corroborated) {
    // The promotion reads the stored story and records its own events: the batch so far is written first.
    await flush(st);
    promotedArticleId = await promoteCorroborated(trx, storyIdOf(st, storyId), now);
  }
  const previousStoryId = current?.storyId ?? null;
  st.events.push({ kind: item.kind, itemId: item.id, storyId, previousStoryId, promotedArticleId });
  return { outcome: 'assigned', storyId, created: decision.storyId === null, previousStoryId, promotedArticleId };
}

function countItem(st: BatchState, words: readonly string[]): void {
  st.items += 1;
  st.newItems += 1;
  for (const w of new Set(words)) {
    st.df.set(w, (st.df.get(w) ?? 0) + 1);
    st.newWords.set(w, (st.newWords.get(w) ?? 0) + 1);
  }
}
