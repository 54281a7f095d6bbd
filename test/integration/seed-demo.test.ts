import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeSeed, seedDemo } from '../../scripts/seed-demo.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(() => deps.close());

it('loads users, articles in every state, yaps, votes and a wire source into an empty database, once', async () => {
  const counts = await seedDemo(deps.db);
  expect(counts).not.toBeNull();
  expect(describeSeed(counts)).toMatch(/^loaded demo data/);
  const states = await deps.db.selectFrom('articles').select('status').distinct().execute();
  expect(states.map((s) => s.status).sort()).toEqual(['approved', 'killed', 'retracted', 'scheduled', 'submitted']);
  const roles = await deps.db.selectFrom('users').select('roles').execute();
  expect(roles.some((r) => r.roles.includes('editor'))).toBe(true);
  expect(roles.some((r) => r.roles.includes('staff'))).toBe(true);
  expect(
    Number(
      (
        await deps.db
          .selectFrom('yaps')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  ).toBeGreaterThan(0);
  expect(
    Number(
      (
        await deps.db
          .selectFrom('votes')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  ).toBeGreaterThan(0);
  const sources = await deps.db.selectFrom('wire_sources').selectAll().execute();
  expect(sources).toHaveLength(1);
  // The wire sighting of a demo article is stored under the article's normalised URL (tracking stripped).
  const article = await deps.db.selectFrom('articles').select('normalized_url').where('slug', 'like', 'uniswap%').executeTakeFirstOrThrow();
  const item = await deps.db.selectFrom('wire_items').select('normalized_url').where('normalized_url', '=', article.normalized_url).executeTakeFirst();
  expect(item).toBeDefined();

  expect(await seedDemo(deps.db)).toBeNull();
});
