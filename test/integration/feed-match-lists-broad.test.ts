/**
 * A filter too broad for a match list (more than 50,000 matches; src/feed/match-lists.ts): its
 * time-bounded pages are left to the page query, and the process remembers it as too broad beyond
 * the feed cache's generation. Before, every new generation (each vote, yap or edit on a busy feed)
 * made the filter's next time-bounded request fetch its 50,001 matches again only to learn the same.
 */
import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedMatchLists } from '../../src/feed/match-lists.js';
import type { FeedQuery } from '../../src/articles/queries.js';
import { sessionFor } from '../support/auth.js';
import { createTestDeps, type TestDeps } from '../support/context.js';

let deps: TestDeps;
const BROAD = 50_001;
const t0 = Date.now();

beforeAll(async () => {
  deps = await createTestDeps();
  const alice = await sessionFor(deps.db, deps.config.JWT_SECRET, { username: 'alice' });
  await sql`
    INSERT INTO articles (slug, headline, url, normalized_url, source, status, submitted_by, created_at, published_at, token_addresses, token_symbols, tags)
    SELECT 'wide-' || g, 'Wide ' || g, 'https://wide.example/' || g, 'https://wide.example/' || g, 'wide.example', 'approved', ${alice.userId}::int,
           to_timestamp(${t0 / 1000}) - g * interval '1 second', to_timestamp(${t0 / 1000}) - g * interval '1 second',
           '{}'::text[], '{}'::text[], CASE WHEN g <= 10 THEN ARRAY['wide', 'narrow'] ELSE ARRAY['wide'] END
    FROM generate_series(1, ${BROAD}::int) g`.execute(deps.db);
}, 120_000);

afterAll(async () => {
  await deps?.close();
});

describe('a filter with more matches than a list holds', () => {
  it('is fetched once to learn it is too broad, not again after the generation moves; other filters are still listed', async () => {
    let queries = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        queries++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const lists = new FeedMatchLists(deps.db.withPlugin(counting), 2000, (r) => String(r.id));
    const q = (tag: string, sinceMs: number): FeedQuery => ({ status: 'approved', sort: 'new', tags: [tag], since: new Date(t0 - sinceMs), page: 1, perPage: 5 });

    // The first time-bounded request of a filter is left to the page query; the second builds its list.
    expect(await lists.page('g1', q('wide', 3_600_000))).toBeUndefined();
    expect(queries).toBe(0);
    expect(await lists.page('g1', q('wide', 3_600_001))).toBeUndefined();
    expect(queries).toBe(1); // the matches, found too many

    // New generations (changes to articles): still too broad, nothing fetched.
    for (const gen of ['g2', 'g3']) {
      expect(await lists.page(gen, q('wide', 3_600_002))).toBeUndefined();
      expect(await lists.page(gen, q('wide', 3_600_003))).toBeUndefined();
    }
    expect(queries).toBe(1);

    // A narrow filter in the same process gets its list.
    expect(await lists.page('g3', q('narrow', 3_600_000))).toBeUndefined();
    const page = await lists.page('g3', q('narrow', 3_600_001));
    expect(page?.count).toBe(10);
    expect(page?.ids).toHaveLength(5);
  }, 60_000);
});
