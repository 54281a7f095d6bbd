/**
 * The assigner's batches (src/stories/assign-service.ts, assign-batcher.ts) against PostgreSQL:
 * a batch assigns as the same items one at a time would, its incremental story counters equal
 * a recomputation from the members, every item gets one story.assigned event, and a retry changes
 * nothing. Items: real headlines of test/data/stories/headlines.jsonl (the first multi-item stories
 * and some single ones), ingested as wire items in their publication order.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignStoryItem, assignStoryItemBatched } from '../../src/stories/index.js';
import { assignStoryItems } from '../../src/stories/assign-service.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
let ids: number[] = [];

interface Labelled {
  title: string;
  url: string;
  source: string;
  published_at: string;
  story: string;
}

function sample(): Labelled[] {
  const all = readFileSync('test/data/stories/headlines.jsonl', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Labelled);
  const size = new Map<string, number>();
  for (const h of all) size.set(h.story, (size.get(h.story) ?? 0) + 1);
  const multi = [...new Set(all.filter((h) => size.get(h.story)! > 1).map((h) => h.story))].slice(0, 12);
  const picked = [...all.filter((h) => multi.includes(h.story)), ...all.filter((h) => size.get(h.story) === 1).slice(0, 20)];
  return picked.sort((a, b) => a.published_at.localeCompare(b.published_at));
}

/** Story ids as a partition: each item's story as the index of that story's first item. */
async function partition(): Promise<number[]> {
  const rows = await deps.db.selectFrom('wire_items').select(['id', 'story_id']).where('id', 'in', ids).execute();
  const story = new Map(rows.map((r) => [r.id, r.story_id]));
  const first = new Map<number | null, number>();
  return ids.map((id, i) => {
    const s = story.get(id) ?? null;
    if (!first.has(s)) first.set(s, i);
    return first.get(s)!;
  });
}

async function reset(): Promise<void> {
  await sql`UPDATE wire_items SET story_id = NULL`.execute(deps.db);
  await sql`DELETE FROM story_members`.execute(deps.db);
  await sql`DELETE FROM story_keys`.execute(deps.db);
  await sql`DELETE FROM stories`.execute(deps.db);
  await sql`DELETE FROM story_word_counts`.execute(deps.db);
}

const assignedEvents = async (sinceId: number) =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM event_log WHERE type = 'story.assigned' AND event_id > ${sinceId}`.execute(deps.db)).rows[0]!.n;
const lastEventId = async () => (await sql<{ id: number }>`SELECT coalesce(max(event_id), 0)::int AS id FROM event_log`.execute(deps.db)).rows[0]!.id;

beforeAll(async () => {
  deps = await createTestDeps({ WIRE_PROMOTE_MIN_SOURCES: '0' });
  const base = Date.now() - 6 * 3600_000;
  const rows = await deps.db
    .insertInto('wire_items')
    .values(
      sample().map((h, i) => ({
        normalized_url: h.url,
        url: h.url,
        title: h.title,
        source_name: h.source,
        source_url: `https://feeds.example/${i}`,
        ingested_at: new Date(base + i * 60_000),
      })),
    )
    .returning('id')
    .execute();
  ids = rows.map((r) => r.id);
});

afterAll(async () => {
  await deps.close();
});

describe('assignment in batches', () => {
  it('groups as one item at a time does, with counters equal to their recomputation, one event each, and retries unchanged', async () => {
    for (const id of ids) await assignStoryItem(deps.db, 'wire', id);
    const oneByOne = await partition();
    expect(new Set(oneByOne).size).toBeLessThan(ids.length);

    await reset();
    const before = await lastEventId();
    const outcomes = await Promise.all(ids.map((id) => assignStoryItemBatched(deps.db, { kind: 'wire', id })));
    expect(outcomes.every((o) => o.outcome === 'assigned')).toBe(true);
    expect(await partition()).toEqual(oneByOne);
    expect(await assignedEvents(before)).toBe(ids.length);

    const off = await sql<{ id: number }>`
      SELECT s.id FROM stories s JOIN (
        SELECT story_id, (array_agg(headline ORDER BY copy_of_member, seen_at, item_kind, item_id))[1] AS headline,
               min(seen_at) AS first_seen, max(seen_at) AS last_seen, count(*)::int AS members,
               count(DISTINCT features->>'sourceKey') FILTER (WHERE NOT copy_of_member)::int AS sources
        FROM story_members GROUP BY story_id
      ) f ON f.story_id = s.id
      WHERE (s.headline, s.first_seen_at, s.last_seen_at, s.member_count, s.source_count) IS DISTINCT FROM (f.headline, f.first_seen, f.last_seen, f.members, f.sources)`.execute(
      deps.db,
    );
    expect(off.rows).toEqual([]);
    const multiSource = await deps.db.selectFrom('stories').select('id').where('source_count', '>', 1).execute();
    expect(multiSource.length).toBeGreaterThan(0);

    const again = await assignStoryItems(
      deps.db,
      ids.map((id) => ({ kind: 'wire' as const, id })),
    );
    expect(again.every((o) => o.outcome === 'unchanged')).toBe(true);
    expect(await assignedEvents(before)).toBe(ids.length);
  });
});
