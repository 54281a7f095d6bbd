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
import { postingsOf, storiesOf } from '../../src/stories/assign-queries.js';
import { assignStoryItems } from '../../src/stories/assign-service.js';
import { BatchStoryView } from '../../src/stories/rules/batch-state.js';
import { itemFeatures, type ItemFeatures } from '../../src/stories/rules/features.js';
import { copyKeys, LOOKUP_WINDOW_MS, lookupWords, MAX_CANDIDATES, MAX_MEMBERS_COMPARED } from '../../src/stories/rules/lookup.js';
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

  it('lets item 2 of a batch join the story item 1 opened, and promotes a story corroborated within the batch once, between their events', async () => {
    await reset();
    const at = new Date(Date.now() - 3600_000);
    const rows = await deps.db
      .insertInto('wire_items')
      .values(
        [
          [
            'https://www.theblockcrypto.com/linked/9/binance-futures-launches-xrp-perpetual-contract',
            'Binance Futures launches XRP perpetual contract, with up to 75x leverage',
            'The Block',
          ],
          [
            'https://eng.ambcrypto.com/binance-futures-launches-xrp-usdt-perpetual-contracts-75x/',
            'Binance Futures launches XRP/USDT perpetual contracts with upto 75x leverage',
            'AMB Crypto',
          ],
        ].map(([url, title, source], i) => ({ normalized_url: url!, url: url!, title: title!, source_name: source!, source_url: `https://feeds.example/b${i}`, ingested_at: at })),
      )
      .returning('id')
      .execute();
    const before = await lastEventId();
    const [a, b] = await assignStoryItems(
      deps.db,
      rows.map((r) => ({ kind: 'wire' as const, id: r.id })),
      new Date(),
      { promoteMinSources: 2 },
    );
    expect(a).toMatchObject({ outcome: 'assigned', created: true, promotedArticleId: null });
    expect(b).toMatchObject({ outcome: 'assigned', created: false, storyId: a!.outcome === 'assigned' ? a!.storyId : -1 });
    const storyId = a!.outcome === 'assigned' ? a!.storyId : -1;
    const promoted = b!.outcome === 'assigned' ? b!.promotedArticleId : null;
    expect(promoted).not.toBeNull();
    const story = await deps.db.selectFrom('stories').selectAll().where('id', '=', storyId).executeTakeFirstOrThrow();
    expect(story).toMatchObject({
      member_count: 2,
      source_count: 2,
      promoted_article_id: promoted,
      headline: 'Binance Futures launches XRP perpetual contract, with up to 75x leverage',
    });
    // The word both headlines share, as the text rules write it.
    const [binance] = itemFeatures({ title: 'Binance', url: null, source: null, at: 0 }).words;
    const keys = await sql<{ n: number }>`SELECT count(*)::int AS n FROM story_keys WHERE story_id = ${storyId} AND key = ${binance}`.execute(deps.db);
    expect(keys.rows[0]!.n).toBe(1);
    const events = await sql<{ type: string; story_id: number | null }>`
      SELECT type, (payload->>'story_id')::int AS story_id FROM event_log WHERE event_id > ${before} ORDER BY event_id`.execute(deps.db);
    const types = events.rows.map((e) => e.type);
    expect(types[0]).toBe('story.assigned');
    expect(types[types.length - 1]).toBe('story.assigned');
    expect(types.filter((t) => t === 'story.assigned')).toHaveLength(2);
    expect(types.length).toBeGreaterThan(2);
    expect(events.rows.filter((e) => e.type === 'story.assigned').map((e) => e.story_id)).toEqual([storyId, storyId]);
  });

  it('re-assigns a changed headline in the middle of a batch as one item at a time does', async () => {
    const order = async (): Promise<number[]> => {
      await reset();
      await assignStoryItems(
        deps.db,
        ids.slice(0, 10).map((id) => ({ kind: 'wire' as const, id })),
      );
      await sql`UPDATE wire_items SET title = ${'Headline changed: ' + 'x'} || title WHERE id = ANY(${sql.val(ids.slice(0, 3))}::int[])`.execute(deps.db);
      return partition();
    };
    await order();
    const refs = [ids[1]!, ...ids.slice(10, 20), ids[0]!, ids[2]!].map((id) => ({ kind: 'wire' as const, id }));
    for (const r of refs) await assignStoryItems(deps.db, [r]);
    const oneByOne = await partition();
    await order();
    const outcomes = await assignStoryItems(deps.db, refs);
    expect(outcomes.filter((o) => o.outcome === 'assigned' && o.previousStoryId !== null)).toHaveLength(3);
    expect(await partition()).toEqual(oneByOne);
    await sql`UPDATE wire_items SET title = substr(title, length('Headline changed: x') + 1) WHERE title LIKE 'Headline changed: x%'`.execute(deps.db);
  });

  it('reads the candidates the SQL lookup of the stored state finds: stories by shared keys, each with its first and latest members', async () => {
    await reset();
    await assignStoryItems(
      deps.db,
      ids.map((id) => ({ kind: 'wire' as const, id })),
    );
    // A story of more members than are compared, several seen at the same time.
    const at = new Date(Date.now() - 2 * 3600_000);
    const copies = await deps.db
      .insertInto('wire_items')
      .values(
        Array.from({ length: MAX_MEMBERS_COMPARED + 6 }, (_, i) => ({
          normalized_url: `https://copy${i}.example/a`,
          url: `https://copy${i}.example/a`,
          title: 'Ethereum developers schedule the Pectra upgrade for May',
          source_name: `Copy ${i}`,
          source_url: `https://feeds.example/c${i}`,
          ingested_at: new Date(at.getTime() + Math.floor(i / 3) * 60_000),
        })),
      )
      .returning('id')
      .execute();
    await assignStoryItems(
      deps.db,
      copies.map((r) => ({ kind: 'wire' as const, id: r.id })),
    );
    const titles = await deps.db
      .selectFrom('wire_items')
      .select(['title', 'url', 'source_name', 'ingested_at'])
      .where('id', 'in', [...ids, copies[0]!.id])
      .execute();
    const counts = new Map((await deps.db.selectFrom('story_word_counts').select(['word', 'items']).execute()).map((r) => [r.word, r.items]));
    let compared = 0;
    for (const t of titles) {
      const f = itemFeatures({ title: t.title, url: t.url, source: t.source_name, at: t.ingested_at.getTime() + 60_000 });
      const keys = [...copyKeys(f), ...lookupWords(f, (w) => counts.get(w) ?? 0)];
      const since = new Date(f.at - LOOKUP_WINDOW_MS);
      const view = new BatchStoryView();
      view.addPostings(keys, await postingsOf(deps.db, keys, since));
      const ranked = view.ranked(keys, f.at);
      view.addStories(await storiesOf(deps.db, ranked, MAX_MEMBERS_COMPARED - 1, 0));
      const got = view.candidates(ranked).map((c) => ({ id: c.id, titles: c.members.map((m) => m.titleKey + m.urlKey) }));
      expect(got).toEqual(await sqlCandidates(keys, since));
      compared += got.reduce((n, c) => n + c.titles.length, 0);
    }
    expect(compared).toBeGreaterThan(titles.length + MAX_MEMBERS_COMPARED);
  });
});

/** The candidate lookup as one SQL statement over the stored state (window functions over all members): the reference. */
async function sqlCandidates(keys: readonly string[], since: Date) {
  const { rows } = await sql<{ id: number; features: ItemFeatures }>`
    WITH c AS (
      SELECT story_id, count(*) AS hits FROM story_keys
      WHERE key = ANY(${sql.val([...keys])}::text[]) AND last_seen_at >= ${since}
      GROUP BY story_id ORDER BY hits DESC, story_id LIMIT ${MAX_CANDIDATES}
    ), m AS (
      SELECT story_id, features, seen_at, item_kind, item_id,
             row_number() OVER (PARTITION BY story_id ORDER BY seen_at DESC, item_kind, item_id) AS rn_desc,
             row_number() OVER (PARTITION BY story_id ORDER BY seen_at, item_kind, item_id) AS rn_asc
      FROM story_members WHERE story_id IN (SELECT story_id FROM c)
    )
    SELECT c.story_id AS id, m.features
    FROM c JOIN m ON m.story_id = c.story_id
    WHERE m.rn_desc <= ${MAX_MEMBERS_COMPARED - 1} OR m.rn_asc = 1
    ORDER BY c.hits DESC, c.story_id, m.seen_at, m.item_kind, m.item_id`.execute(deps.db);
  const out: { id: number; titles: string[] }[] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    const t = r.features.titleKey + r.features.urlKey;
    if (last?.id === r.id) last.titles.push(t);
    else out.push({ id: r.id, titles: [t] });
  }
  return out;
}
