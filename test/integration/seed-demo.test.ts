import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeSeed, seedDemo } from '../../scripts/seed-demo.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(() => deps.close());

const rowCount = async (table: 'yaps' | 'votes') =>
  Number(
    (
      await deps.db
        .selectFrom(table)
        .select((e) => e.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

it('loads users, articles in every state, yaps, votes and a wire source into an empty database, once', async () => {
  const counts = await seedDemo(deps.db);
  expect(counts).not.toBeNull();
  expect(describeSeed(counts)).toMatch(/^loaded demo data/);
  const states = await deps.db.selectFrom('articles').select('status').distinct().execute();
  expect(states.map((s) => s.status).sort()).toEqual(['approved', 'killed', 'retracted', 'scheduled', 'submitted']);
  const roles = await deps.db.selectFrom('users').select('roles').execute();
  expect(roles.some((r) => r.roles.includes('editor'))).toBe(true);
  expect(roles.some((r) => r.roles.includes('staff'))).toBe(true);
  expect(await rowCount('yaps')).toBeGreaterThan(0);
  expect(await rowCount('votes')).toBeGreaterThan(0);
  const sources = await deps.db.selectFrom('wire_sources').selectAll().execute();
  expect(sources).toHaveLength(1);
  // The wire sighting of a demo article is stored under the article's normalised URL (tracking stripped).
  const article = await deps.db.selectFrom('articles').select('normalized_url').where('slug', 'like', 'uniswap%').executeTakeFirstOrThrow();
  const item = await deps.db.selectFrom('wire_items').select('normalized_url').where('normalized_url', '=', article.normalized_url).executeTakeFirst();
  expect(item).toBeDefined();

  expect(await seedDemo(deps.db)).toBeNull();
});
