/**
 * Writes a simulated month (rewards-simulate.ts) into the database as the API would have left it:
 * users with their hashed sign-in fingerprints, articles with their editorial review (article_edits
 * rows), yaps, votes and the readers of the click-through. Set-based inserts (unnest), not one API
 * call per vote: a month of votes through HTTP would take minutes.
 */
import { sql } from 'kysely';
import { fingerprintOf } from '../../../src/identity/fingerprints.js';
import type { Db } from '../../../src/platform/db.js';
import type { SimMonth } from './rewards-month.js';

const BATCH = 5000;

async function chunks<T>(rows: T[], fn: (batch: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await fn(rows.slice(i, i + BATCH));
}

const iso = (ms: number) => new Date(ms).toISOString();

async function storeUsers(db: Db, m: SimMonth, secret: string): Promise<void> {
  await chunks(m.users, (us) =>
    sql`
      INSERT INTO users (id, wallet_address, account_type, roles, created_at)
      SELECT id, '0x' || lpad(to_hex(id), 40, '0'), type, CASE WHEN editor THEN ARRAY['editor'] ELSE '{}'::text[] END, at
      FROM unnest(${us.map((u) => u.id)}::int[], ${us.map((u) => u.type)}::text[], ${us.map((u) => u.editor)}::bool[], ${us.map((u) => iso(u.createdAt))}::timestamptz[])
        AS t(id, type, editor, at)`.execute(db),
  );
  const prints = m.users.flatMap((u) => u.clients.map((c) => ({ f: fingerprintOf(secret, { id: u.id, via: 'wallet' }, { ip: c.ip, userAgent: c.ua }), at: u.createdAt })));
  await chunks(prints, (ps) =>
    sql`
      INSERT INTO sign_in_fingerprints (user_id, at, day, ip_hash, ua_hash)
      SELECT u, at, (at AT TIME ZONE 'utc')::date, ip, ua
      FROM unnest(${ps.map((p) => p.f.userId)}::int[], ${ps.map((p) => iso(p.at))}::timestamptz[], ${ps.map((p) => p.f.ipHash)}::text[], ${ps.map((p) => p.f.uaHash)}::text[])
        AS t(u, at, ip, ua)
      ON CONFLICT DO NOTHING`.execute(db),
  );
}

async function storeArticles(db: Db, m: SimMonth): Promise<void> {
  await chunks(m.articles, (as) =>
    sql`
      INSERT INTO articles (id, slug, headline, url, normalized_url, status, submitted_by, created_at, published_at, reviewed_by, reviewed_at)
      SELECT id, 'sim-' || id, 'Simulated article ' || id, 'https://news.example/' || id, 'https://news.example/' || id, status, by, at,
             CASE WHEN status = 'approved' THEN coalesce(reviewed_at, at) END, reviewed_by, reviewed_at
      FROM unnest(${as.map((a) => a.id)}::int[], ${as.map((a) => a.status)}::text[], ${as.map((a) => a.by)}::int[], ${as.map((a) => iso(a.at))}::timestamptz[],
                  ${as.map((a) => a.reviewedBy)}::int[], ${as.map((a) => (a.reviewedAt === null ? null : iso(a.reviewedAt)))}::timestamptz[])
        AS t(id, status, by, at, reviewed_by, reviewed_at)`.execute(db),
  );
  await sql`
    INSERT INTO article_edits (article_id, editor_id, changes, created_at, action)
    SELECT id, reviewed_by, jsonb_build_object('status', jsonb_build_object('from', 'submitted', 'to', status)), reviewed_at,
           CASE status WHEN 'approved' THEN 'approve' ELSE 'kill' END
    FROM articles WHERE reviewed_by IS NOT NULL AND submitted_by IS NOT NULL`.execute(db);
}

async function storeYapsAndVotes(db: Db, m: SimMonth): Promise<void> {
  const typeOf = new Map(m.users.map((u) => [u.id, u.type]));
  await chunks(m.yaps, (ys) =>
    sql`
      INSERT INTO yaps (id, article_id, user_id, text, base_score, created_at)
      SELECT id, a, u, 'simulated yap ' || id, b, at
      FROM unnest(${ys.map((y) => y.id)}::int[], ${ys.map((y) => y.articleId)}::int[], ${ys.map((y) => y.by)}::int[],
                  ${ys.map((y) => (typeOf.get(y.by) === 'human' ? 1 : 0))}::int[], ${ys.map((y) => iso(y.at))}::timestamptz[]) AS t(id, a, u, b, at)`.execute(db),
  );
  for (const kind of ['article', 'yap'] as const) {
    const vs = m.votes.filter((v) => v.kind === kind);
    const table = kind === 'article' ? sql`votes (article_id, user_id, weight, created_at, updated_at)` : sql`yap_votes (yap_id, user_id, weight, created_at, updated_at)`;
    await chunks(vs, (b) =>
      sql`
        INSERT INTO ${table}
        SELECT t, u, w, at, at FROM unnest(${b.map((v) => v.targetId)}::int[], ${b.map((v) => v.by)}::int[], ${b.map((v) => v.value)}::int[], ${b.map((v) => iso(v.at))}::timestamptz[])
          AS x(t, u, w, at)`.execute(db),
    );
  }
  const reads = m.votes.filter((v) => v.clicked);
  await chunks(reads, (b) =>
    sql`
      INSERT INTO article_readers (article_id, user_id, first_at)
      SELECT t, u, at - interval '1 minute' FROM unnest(${b.map((v) => v.targetId)}::int[], ${b.map((v) => v.by)}::int[], ${b.map((v) => iso(v.at))}::timestamptz[]) AS x(t, u, at)
      ON CONFLICT DO NOTHING`.execute(db),
  );
}

export async function storeMonth(db: Db, m: SimMonth, secret: string): Promise<void> {
  await storeUsers(db, m, secret);
  await storeArticles(db, m);
  await storeYapsAndVotes(db, m);
  for (const [table, max] of [
    ['users', m.users.length],
    ['articles', m.articles.length],
    ['yaps', m.yaps.length],
  ] as const)
    await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), ${max + 1})`.execute(db);
}
