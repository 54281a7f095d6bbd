/**
 * The stories reindex (src/stories/reindex-service.ts): after the stored features, lookup keys and
 * word counts were written by other rules (simulated by overwriting them), a reindex writes what
 * the assigner itself writes with the current rules, keeps every membership, and a second run
 * changes nothing. Items: real headlines of test/data/stories/headlines.jsonl as wire items, and
 * three as articles whose fetched page gave a description (their page text).
 */
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reindexStories } from '../../src/stories/index.js';
import { assignStoryItems } from '../../src/stories/assign-service.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
const since = new Date(Date.now() - 30 * 86_400_000);

interface Labelled {
  title: string;
  url: string;
  source: string;
  published_at: string;
}

async function state() {
  const members = await sql<{ item_id: number; story_id: number; features: unknown }>`
    SELECT item_id, story_id, features FROM story_members ORDER BY item_kind, item_id`.execute(deps.db);
  const keys = await sql<{ key: string; story_id: number; last_seen_at: Date }>`SELECT key, story_id, last_seen_at FROM story_keys ORDER BY story_id, key`.execute(deps.db);
  const counts = await sql<{ word: string; items: number }>`SELECT word, items FROM story_word_counts ORDER BY word`.execute(deps.db);
  return { members: members.rows, keys: keys.rows, counts: counts.rows };
}

beforeAll(async () => {
  deps = await createTestDeps({ WIRE_PROMOTE_MIN_SOURCES: '0' });
  const picked = readFileSync('test/data/stories/headlines.jsonl', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Labelled)
    .slice(0, 43);
  const base = Date.now() - 6 * 3600_000;
  const rows = await deps.db
    .insertInto('wire_items')
    .values(
      picked.slice(0, 40).map((h, i) => ({
        normalized_url: h.url,
        url: h.url,
        title: h.title,
        summary: i % 3 === 0 ? `${h.title} reported by ${h.source}` : null,
        source_name: h.source,
        source_url: `https://feeds.example/${i}`,
        ingested_at: new Date(base + i * 60_000),
      })),
    )
    .returning('id')
    .execute();
  const articles = await deps.db
    .insertInto('articles')
    .values(
      picked.slice(40).map((h, i) => ({
        slug: `reindex-${i}`,
        headline: h.title,
        headline_source: 'page_title' as const,
        url: h.url,
        normalized_url: h.url,
        source: h.source,
        status: 'approved' as const,
        page_description: `${h.title}, as the page describes it: the report by ${h.source}`,
        created_at: new Date(base + (40 + i) * 60_000),
      })),
    )
    .returning('id')
    .execute();
  await assignStoryItems(deps.db, [...rows.map((r) => ({ kind: 'wire' as const, id: r.id })), ...articles.map((a) => ({ kind: 'article' as const, id: a.id }))]);
});
afterAll(async () => {
  await deps.close();
});

describe('stories reindex', () => {
  it('rewrites stale features, keys and word counts to what the assigner writes, keeps memberships, and is idempotent', async () => {
    const assigned = await state();
    expect(assigned.members.length).toBe(43);
    expect(new Set(assigned.members.map((m) => m.story_id)).size).toBeLessThan(43);
    // Features, keys and counts as other rules would have left them.
    await sql`UPDATE story_members SET features = jsonb_set(features, '{words}', '["stale"]'::jsonb)`.execute(deps.db);
    await sql`DELETE FROM story_keys`.execute(deps.db);
    await sql`INSERT INTO story_keys (key, story_id, last_seen_at) SELECT 'stale', id, last_seen_at FROM stories`.execute(deps.db);
    await sql`UPDATE story_word_counts SET items = items + 7`.execute(deps.db);
    await sql`INSERT INTO story_word_counts (word, items) VALUES ('stale', 40)`.execute(deps.db);
    expect(await state()).not.toEqual(assigned);

    const batches: number[] = [];
    const r = await reindexStories(deps.db, since, { batch: 5, onBatch: (n) => batches.push(n) });
    expect(r.members).toBe(43);
    expect(r.stories).toBe(new Set(assigned.members.map((m) => m.story_id)).size);
    expect(batches.length).toBeGreaterThan(1);
    expect(await state()).toEqual(assigned);

    await reindexStories(deps.db, since, { batch: 1000 });
    expect(await state()).toEqual(assigned);
  });
});
