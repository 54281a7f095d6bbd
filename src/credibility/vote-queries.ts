/**
 * The per-vote credibility update (the credibility-vote job): when a vote is cast, changed or
 * cleared, its weight row is decided from its voter alone, with the rule the full recompute applies
 * to every vote, so boards and the earnings estimate see it before the nightly recompute. What needs
 * the whole month (new rings, bursts, co-voting) waits for that recompute, which re-decides every
 * vote it read and keeps rows written after its cut-off (queries.ts, publishRun).
 *
 * One statement reads the vote with everything the weight rule needs about it and its voter
 * (account, the month's published flags and staff decisions that name the voter, the voter's
 * click-through counts of the month), decides the vote's weight and reasons, and writes or deletes
 * its weight row. It runs as a named prepared statement
 * (platform/db.ts, executePrepared): it runs once per vote, and planning it costs about as much as
 * executing it.
 *
 * The decision is rules/vote-weight.ts (voteContextFrom, then voteWeight) written as SQL: the same
 * factors in the same order, multiplied in that order from 1 (credibility_product), with the
 * thresholds, factors and reasons passed from rules/thresholds.ts and rules/reasons.ts.
 * test/integration/credibility-vote-sql.test.ts holds the two equal, weight and reasons, over
 * generated voters, flags and staff decisions; a change to the rule changes both.
 */
import { sql } from 'kysely';
import { executePrepared, type Db } from '../platform/db.js';
import { REASONS } from './rules/reasons.js';
import { T } from './rules/thresholds.js';
import type { Vote } from './rules/model.js';

type VoteKind = Vote['kind'];

/** The vote's weight (1: no row) and reasons; weight null when the vote no longer exists or is on the voter's own item (no row). */
interface VoteUpdate {
  weight: number | null;
  reasons: string[];
}

const float = (x: number) => sql`${x}::float8`;
const text = (x: string) => sql`${x}::text`;

function voteRow(kind: VoteKind, targetId: number, userId: number) {
  return kind === 'article_vote'
    ? sql`
        SELECT v.created_at AS at, a.submitted_by AS author_id,
               EXISTS (SELECT 1 FROM article_readers r WHERE r.article_id = v.article_id AND r.user_id = v.user_id) AS clicked,
               u.created_at AS user_created_at, u.account_type
        FROM votes v JOIN articles a ON a.id = v.article_id JOIN users u ON u.id = v.user_id
        WHERE v.article_id = ${targetId} AND v.user_id = ${userId}`
    : sql`
        SELECT v.created_at AS at, y.user_id AS author_id, false AS clicked, u.created_at AS user_created_at, u.account_type
        FROM yap_votes v JOIN yaps y ON y.id = v.yap_id JOIN users u ON u.id = v.user_id
        WHERE v.yap_id = ${targetId} AND v.user_id = ${userId}`;
}

/**
 * The voter's article votes of the month on others' articles, and how many of them it opened: read
 * only for an article vote without a click-through on another's article (the only vote the no-click
 * rule discounts); otherwise 0.
 */
function clickCounts(kind: VoteKind) {
  return kind === 'article_vote' ? sql`coalesce(n.votes, 0) AS votes, coalesce(n.opened, 0) AS opened` : sql`0 AS votes, 0 AS opened`;
}

function clickJoin(kind: VoteKind, userId: number) {
  if (kind !== 'article_vote') return sql``;
  return sql`
    LEFT JOIN LATERAL (
      SELECT count(*)::int AS votes,
             count(*) FILTER (WHERE EXISTS (SELECT 1 FROM article_readers r WHERE r.article_id = mv.article_id AND r.user_id = mv.user_id))::int AS opened
      FROM votes mv
      WHERE m.others AND NOT m.clicked
        AND mv.user_id = ${userId}::int AND mv.created_at >= m.month_start AND mv.created_at < m.month_end
        AND (SELECT a.submitted_by FROM articles a WHERE a.id = mv.article_id) IS DISTINCT FROM mv.user_id
    ) n ON true`;
}

const ms = (ts: string) => sql.raw(`floor(extract(epoch FROM ${ts}) * 1000)`);

/**
 * Decide one vote's weight and write it in one statement: a weight below 1 is upserted with
 * written_at now() (a full recompute's publication keeps it when it is newer than the run's
 * cut-off); full weight, a cleared vote or a vote on one's own item deletes the row.
 */
function voteUpdateStatement(kind: VoteKind, targetId: number, userId: number) {
  const user = sql`${userId}::int`;
  const item = `${kind}:${targetId}`;
  return sql<{ weight: number | null; reasons: string[] | null }>`
    WITH v AS MATERIALIZED (${voteRow(kind, targetId, userId)}),
    m AS MATERIALIZED (
      SELECT v.*, to_char(v.at AT TIME ZONE 'UTC', 'YYYY-MM') AS month,
             date_trunc('month', v.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month_start,
             (date_trunc('month', v.at AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC' AS month_end,
             v.author_id IS DISTINCT FROM ${user} AS others,
             ${ms('v.at')} - ${ms('v.user_created_at')} AS age_ms
      FROM v
    ),
    ov AS MATERIALIZED (
      SELECT o.kind, o.members, o.decision FROM m JOIN credibility_overrides o ON o.month = m.month
      WHERE m.others AND o.members @> ARRAY[${user}]
    ),
    fl AS MATERIALIZED (
      SELECT f.id, f.kind, f.members, f.evidence FROM m JOIN credibility_flags f ON f.month = m.month
      WHERE m.others AND f.members @> ARRAY[${user}]
        AND NOT EXISTS (SELECT 1 FROM ov WHERE ov.decision = 'cleared' AND ov.kind = f.kind AND ov.members = f.members)
    ),
    c AS MATERIALIZED (
      SELECT m.*, ${clickCounts(kind)},
             EXISTS (SELECT 1 FROM ov WHERE ov.decision = 'confirmed') AS confirmed,
             EXISTS (SELECT 1 FROM ov WHERE ov.decision = 'cleared') AS cleared
      FROM m ${clickJoin(kind, userId)}
    ),
    fx AS (
      SELECT 1 AS ord, 0::float8 AS f, ${text(REASONS.confirmed)} AS r FROM c WHERE c.confirmed
      UNION ALL SELECT 2, 0, ${text(REASONS.bot)} FROM c WHERE c.account_type = 'bot'
      UNION ALL
      SELECT 3, CASE WHEN c.age_ms < ${T.newAccountMs} THEN ${float(T.newAccountFactor)} ELSE ${float(T.youngAccountFactor)} END,
             CASE WHEN c.age_ms < ${T.newAccountMs} THEN ${text(REASONS.newAccount)} ELSE ${text(REASONS.youngAccount)} END
      FROM c WHERE c.age_ms >= 0 AND c.age_ms < ${T.youngAccountMs}
      UNION ALL SELECT 4, 0, ${text(REASONS.burst)} FROM c WHERE EXISTS (SELECT 1 FROM fl WHERE fl.kind = 'burst' AND fl.evidence->>'target' = ${text(item)})
      UNION ALL
      SELECT 5, ${float(T.noClickFactor)}, ${text(REASONS.noClick)} FROM c
      WHERE ${text(kind)} = 'article_vote' AND NOT c.clicked AND c.votes >= ${T.noClickMinVotes}::int AND c.opened < ${float(T.noClickMaxShare)} * c.votes
      UNION ALL
      SELECT 5 + row_number() OVER (ORDER BY fl.id),
             CASE fl.kind WHEN 'cohort' THEN ${float(T.cohortFactor)} WHEN 'indiscriminate' THEN ${float(T.indiscriminateFactor)}
                          WHEN 'co_voting' THEN 1::float8 / cardinality(fl.members) ELSE 0 END,
             CASE fl.kind WHEN 'cohort' THEN ${text(REASONS.cohort)} WHEN 'indiscriminate' THEN ${text(REASONS.indiscriminate)}
                          WHEN 'co_voting' THEN ${text(REASONS.coVoting)} ELSE ${text(REASONS.ring)} END
      FROM c, fl
      WHERE fl.kind IN ('cohort', 'indiscriminate', 'co_voting') OR (fl.kind IN ('ring', 'reciprocal_pair') AND c.author_id = ANY(fl.members))
    ),
    w AS (
      SELECT c.month, c.cleared AND NOT c.confirmed AS full_weight FROM c WHERE c.others
    ),
    d AS (
      SELECT w.month, CASE WHEN w.full_weight THEN 1 ELSE coalesce((SELECT credibility_product(fx.f ORDER BY fx.ord) FROM fx), 1) END AS weight,
             CASE WHEN w.full_weight THEN '{}'::text[] ELSE coalesce((SELECT array_agg(fx.r ORDER BY fx.ord) FROM fx), '{}') END AS reasons
      FROM w
    ),
    up AS (
      INSERT INTO credibility_weights (month, kind, target_id, user_id, weight, reasons, written_at)
      SELECT d.month, ${text(kind)}, ${targetId}::int, ${user}, d.weight, d.reasons, now() FROM d WHERE d.weight < 1
      ON CONFLICT (kind, target_id, user_id) DO UPDATE SET month = excluded.month, weight = excluded.weight, reasons = excluded.reasons, written_at = excluded.written_at
    ),
    gone AS (
      DELETE FROM credibility_weights cw
      WHERE cw.kind = ${text(kind)} AND cw.target_id = ${targetId}::int AND cw.user_id = ${user} AND NOT EXISTS (SELECT 1 FROM d WHERE d.weight < 1)
    )
    SELECT d.weight, d.reasons FROM (SELECT 1) one LEFT JOIN d ON true`;
}

export async function updateVoteCredibility(db: Db, kind: VoteKind, targetId: number, userId: number): Promise<VoteUpdate> {
  const r = await executePrepared(db, voteUpdateStatement(kind, targetId, userId));
  const row = r.rows[0];
  return row?.weight === null || row?.weight === undefined ? { weight: null, reasons: [] } : { weight: row.weight, reasons: row.reasons ?? [] };
}
