/**
 * Seed for the feed benchmark: N approved articles (default 100,000) in set-based SQL
 * (generate_series), spread over the last 14 days (the last 139 days at 1,000,000), with votes,
 * clicks, tags (one of 5), sources (one of 5), token addresses (one of 200 tokens on half of them;
 * BENCH_TOKEN, symbol UNI, on 1 %), and a tldr yap on every fifth article so
 * top_tldr has work to do. Counters are written directly (no vote rows): the feed and the hot
 * score read the counters.
 *   DATABASE_URL=postgres://... tsx scripts/bench/seed-feed.ts [n]
 */
import { sql } from 'kysely';
import type { Db } from '../../src/platform/db.js';

/** The token address the benchmark filters on (present on 1 % of the seeded articles). */
export const BENCH_TOKEN = '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984';

export async function seedFeed(db: Db, n = 100_000): Promise<{ articles: number; yaps: number; ms: number }> {
  const t0 = performance.now();
  await sql`
    INSERT INTO users (wallet_address, username, account_type)
    SELECT '0x' || lpad(to_hex(g), 40, '0'), 'bench_user_' || g, (ARRAY['human', 'human', 'cyborg', 'bot'])[1 + g % 4]
    FROM generate_series(1, 1000) g
    ON CONFLICT DO NOTHING`.execute(db);
  const users = await sql<{ min: number; max: number }>`SELECT min(id) AS min, max(id) AS max FROM users WHERE username LIKE 'bench_user_%'`.execute(db);
  const { min, max } = users.rows[0];
  const span = max - min + 1;
  await sql`
    INSERT INTO articles (slug, headline, url, normalized_url, source, status, origin, submitted_by, created_at, published_at,
                          token_addresses, token_symbols, tags, content_type, clicks, vote_count, votes_cast)
    SELECT 'bench-story-' || g,
           'Bench story ' || g || ': ' || (ARRAY['Uniswap', 'Aave', 'Lido', 'Arbitrum', 'Maker', 'Curve'])[1 + g % 6] || ' governance update',
           'https://bench.example/story/' || g,
           'https://bench.example/story/' || g,
           (ARRAY['bench.example', 'coindesk.com', 'theblock.co', 'decrypt.co', 'dlnews.com'])[1 + (g / 5) % 5], 'approved', 'manual',
           ${min}::int + g % ${span}::int,
           now() - (g * interval '12 seconds') - interval '1 hour',
           now() - (g * interval '12 seconds'),
           CASE WHEN g % 100 = 0 THEN ARRAY[${BENCH_TOKEN}]
                WHEN g % 2 = 0 THEN ARRAY['0x' || lpad(to_hex(1000 + g % 200), 40, '0')]
                ELSE '{}'::text[] END,
           CASE WHEN g % 100 = 0 THEN ARRAY['UNI'] WHEN g % 2 = 0 THEN ARRAY['T' || (g % 200)] ELSE '{}'::text[] END,
           ARRAY[(ARRAY['governance', 'defi', 'markets', 'security', 'layer2'])[1 + g % 5]],
           CASE WHEN g % 7 = 0 THEN 'governance_proposal' END,
           ((g::bigint * 7919) % 500)::int,
           ((g::bigint * 104729) % 60)::int - 10,
           ((g::bigint * 104729) % 60)::int
    FROM generate_series(1, ${n}::int) g`.execute(db);
  const y = await sql`
    INSERT INTO yaps (article_id, user_id, text, tags, base_score, vote_score, created_at)
    SELECT a.id, ${min}::int + (a.id * 31) % ${span}::int, 'TL;DR: ' || a.headline, ARRAY['tldr'], 1, (a.id * 13) % 9, a.published_at + interval '5 minutes'
    FROM articles a WHERE a.url LIKE 'https://bench.example/story/%' AND a.id % 5 = 0`.execute(db);
  await sql`UPDATE articles a SET yap_count = 1 WHERE a.url LIKE 'https://bench.example/story/%' AND a.id % 5 = 0`.execute(db);
  await sql`VACUUM ANALYZE articles`.execute(db);
  await sql`VACUUM ANALYZE yaps`.execute(db);
  return { articles: n, yaps: Number(y.numAffectedRows ?? 0), ms: performance.now() - t0 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { launcherEnv } = await import('../../src/platform/config.js');
  const { createDb } = await import('../../src/platform/db.js');
  const url = launcherEnv().DATABASE_URL;
  if (!url) throw new Error('set DATABASE_URL to a migrated database');
  const db = createDb(url, { max: 1 });
  const r = await seedFeed(db, Number(process.argv[2] ?? 100_000));
  console.log(`seeded ${r.articles} articles and ${r.yaps} yaps in ${(r.ms / 1000).toFixed(1)} s`);
  await db.destroy();
}
