/**
 * The stories use cases: assignment (assign-service.ts holds the assigner; assignStoryItem assigns
 * one item in its own transaction), the reads of the API, and the backfill.
 */
import type { Db } from '../platform/db.js';
import { isoTime } from '../platform/iso-time.js';
import { assignStoryItems, type AssignOptions, type AssignOutcome } from './assign-service.js';
import { storyById, storyMembers, storyPage, unassignedItems, type ItemKind, type StoryListFilter } from './queries.js';

/** Assign one article or wire item in its own transaction (assign-service.ts). */
export async function assignStoryItem(db: Db, kind: ItemKind, id: number, now: Date = new Date(), opts: AssignOptions = {}): Promise<AssignOutcome> {
  return (await assignStoryItems(db, [{ kind, id }], now, opts))[0]!;
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

const BACKFILL_TRANSACTION = 100;

/**
 * Assign every unassigned article and wire item seen since `since`, oldest first, in batches
 * (BACKFILL_TRANSACTION items per transaction).
 * Resumable: what an interrupted run assigned is skipped by the next one. Items that cannot be
 * assigned (deleted meanwhile) are left out of the count; the run stops when a batch assigns none.
 */
export async function backfillStories(db: Db, since: Date, opts: { batch: number; onBatch?: (assigned: number) => void }): Promise<number> {
  let total = 0;
  for (;;) {
    const items = await unassignedItems(db, since, opts.batch);
    let assigned = 0;
    for (let i = 0; i < items.length; i += BACKFILL_TRANSACTION) {
      const outcomes = await assignStoryItems(db, items.slice(i, i + BACKFILL_TRANSACTION));
      assigned += outcomes.filter((o) => o.outcome === 'assigned').length;
    }
    total += assigned;
    opts.onBatch?.(total);
    if (items.length < opts.batch || assigned === 0) return total;
  }
}
