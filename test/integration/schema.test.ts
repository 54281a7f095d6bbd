import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateSchemaSource } from '../../scripts/lib/schema-codegen.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(() => deps.close());

it('db/schema.ts matches the migrated database (run `npm run db:codegen` after adding a migration)', async () => {
  const expected = await generateSchemaSource(deps.db);
  const actual = readFileSync(new URL('../../db/schema.ts', import.meta.url), 'utf8');
  expect(actual).toBe(expected);
});

it('has the indexes the feed sorts and the token filter rely on', async () => {
  const { rows } = await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE tablename IN ('articles', 'article_hot_scores')`.execute(deps.db);
  const names = rows.map((r) => r.indexname);
  for (const n of [
    'article_hot_scores_status_hot_idx',
    'articles_status_created_idx',
    'articles_feed_top_idx',
    'articles_feed_window_idx',
    'articles_feed_source_idx',
    'articles_token_addresses_idx',
  ]) {
    expect(names).toContain(n);
  }
});
