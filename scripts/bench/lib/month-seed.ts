/**
 * A generated month of curation for the benches that compute over one (leaderboards, credibility):
 * submissions (70 % approved and live in the month, 10 % killed, 20 % pending; reviewed by users
 * 1..50, with their editorial edit rows), yaps, and article votes whose (article, user) pairs are
 * distinct (for a fixed article the voters differ by k * 997, mod users). Every row is inside the
 * month that starts at `start`; the accounts 1..users must exist.
 */
import { sql } from 'kysely';
import type { Db } from '../../../src/platform/db.js';

interface MonthShape {
  start: string;
  users: number;
  articles: number;
  yaps: number;
  votes: number;
}

export const SECONDS_IN_MONTH = 31 * 24 * 3600 - 60;

export async function seedMonthActivity(db: Db, m: MonthShape): Promise<void> {
  await sql`
    INSERT INTO articles (slug, headline, url, normalized_url, status, submitted_by, created_at, published_at, reviewed_by, reviewed_at)
    SELECT 'a' || g, 'Headline ' || g, 'https://news.example/' || g, 'https://news.example/' || g,
           CASE WHEN g % 10 < 7 THEN 'approved' WHEN g % 10 = 7 THEN 'killed' ELSE 'submitted' END,
           1 + (g * 7919) % ${m.users}::int,
           t, CASE WHEN g % 10 < 7 THEN t + interval '1 hour' END,
           CASE WHEN g % 10 < 8 THEN 1 + g % 50 END, CASE WHEN g % 10 < 8 THEN t + interval '1 hour' END
    FROM generate_series(1, ${m.articles}::int) g, LATERAL (SELECT ${m.start}::timestamptz + make_interval(secs => (g * 37) % ${SECONDS_IN_MONTH}::int) AS t) x`.execute(db);
  await sql`
    INSERT INTO article_edits (article_id, editor_id, changes, created_at)
    SELECT id, reviewed_by, jsonb_build_object('status', jsonb_build_object('from', 'submitted', 'to', status)), reviewed_at
    FROM articles WHERE reviewed_by IS NOT NULL`.execute(db);
  await sql`
    INSERT INTO yaps (article_id, user_id, text, base_score, vote_score, created_at)
    SELECT 1 + (g * 31) % ${m.articles}::int, 1 + (g::bigint * 104729) % ${m.users}::int, 'yap ' || g, (ARRAY[1, 1, 1, 0, -1])[1 + g % 5], (g % 7) - 2,
           ${m.start}::timestamptz + make_interval(secs => (g * 13) % ${SECONDS_IN_MONTH}::int)
    FROM generate_series(1, ${m.yaps}::int) g`.execute(db);
  await sql`
    INSERT INTO votes (article_id, user_id, weight, created_at)
    SELECT 1 + g % ${m.articles}::int, 1 + ((g % ${m.articles}::int) * 31 + (g / ${m.articles}::int) * 997) % ${m.users}::int,
           CASE WHEN g % 4 = 0 THEN -1 ELSE 1 END,
           ${m.start}::timestamptz + make_interval(secs => (g * 7) % ${SECONDS_IN_MONTH}::int)
    FROM generate_series(0, ${m.votes}::int - 1) g`.execute(db);
}
