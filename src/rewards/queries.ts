/**
 * Reward allocations, monthly distributions and drops. Amount columns are numeric(78,0) base units;
 * they are always read as text (the pg NUMERIC parser would turn them into lossy JS numbers).
 */
import { sql } from 'kysely';
import { getAddress } from 'viem';
import type { Db } from '../platform/db.js';
import { CATEGORIES, DEFAULT_ALLOCATION_BP, POOL_UNITS, addMonths, allocationTokens, type AllocationBp } from './rules/rewards.js';

interface AllocationInEffect {
  month: string;
  bp: AllocationBp;
  /** `set`: a row for this month; `carried`: the latest earlier month's row; `default`: none ever set. */
  source: 'set' | 'carried' | 'default';
  /** The month whose row applies (null for the default). */
  from_month: string | null;
  note: string | null;
}

/**
 * The allocation that applies to `month`: the row set for it (decided by the DAO vote held the month
 * before), else the most recent earlier row (a vote stays in force until the next one), else the
 * default equal split.
 */
export async function allocationFor(db: Db, month: string): Promise<AllocationInEffect> {
  const row = await db.selectFrom('reward_allocations').selectAll().where('month', '<=', month).orderBy('month', 'desc').limit(1).executeTakeFirst();
  if (!row) return { month, bp: { ...DEFAULT_ALLOCATION_BP }, source: 'default', from_month: null, note: null };
  return {
    month,
    bp: { top_posters: row.top_posters_bp, top_yappers: row.top_yappers_bp, top_voters: row.top_voters_bp, top_editors: row.top_editors_bp },
    source: row.month === month ? 'set' : 'carried',
    from_month: row.month,
    note: row.note,
  };
}

export async function setAllocation(db: Db, month: string, bp: AllocationBp, note: string | null) {
  const values = { top_posters_bp: bp.top_posters, top_yappers_bp: bp.top_yappers, top_voters_bp: bp.top_voters, top_editors_bp: bp.top_editors, note };
  return db
    .insertInto('reward_allocations')
    .values({ month, ...values })
    .onConflict((oc) => oc.column('month').doUpdateSet({ ...values, updated_at: sql`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listAllocations(db: Db) {
  return db.selectFrom('reward_allocations').selectAll().orderBy('month', 'desc').execute();
}

/** A human sentence naming the allocation behind an estimate (earnings `based_on`). */
export function describeAllocation(a: AllocationInEffect): string {
  const tokens = allocationTokens(a.bp);
  const split = CATEGORIES.map((c) => `${c} ${a.bp[c] / 100}% (${tokens[c].toLocaleString('en-US')})`).join(', ');
  const why =
    a.source === 'set'
      ? `the DAO vote of ${addMonths(a.month, -1)} for ${a.month}`
      : a.source === 'carried'
        ? `the DAO vote for ${a.from_month} (no vote recorded for ${a.month}; the last one stays in force)`
        : `the default equal split (no DAO vote recorded yet)`;
  return `${a.month} pool of 1,000,000 SQUID split by ${why}: ${split}`;
}

export interface DistributionRow {
  month: string;
  merkle_root: string | null;
  pool_amount: string;
  total_distributed: string;
  recipients: number;
  allocation: unknown;
  totals: unknown;
  created_at: Date;
}

const distributionColumns = sql`month, merkle_root, pool_amount::text AS pool_amount, total_distributed::text AS total_distributed, recipients, allocation, totals, created_at`;

export async function getDistribution(db: Db, month: string): Promise<DistributionRow | undefined> {
  const r = await sql<DistributionRow>`SELECT ${distributionColumns} FROM reward_distributions WHERE month = ${month}`.execute(db);
  return r.rows[0];
}

interface DistributionInsert {
  month: string;
  merkleRoot: string | null;
  totalDistributed: bigint;
  recipients: number;
  allocation: unknown;
  totals: unknown;
}

export async function insertDistribution(db: Db, d: DistributionInsert): Promise<void> {
  await sql`
    INSERT INTO reward_distributions (month, merkle_root, pool_amount, total_distributed, recipients, allocation, totals)
    VALUES (${d.month}, ${d.merkleRoot}, ${POOL_UNITS.toString()}::numeric, ${d.totalDistributed.toString()}::numeric,
            ${d.recipients}, ${JSON.stringify(d.allocation)}::jsonb, ${JSON.stringify(d.totals)}::jsonb)`.execute(db);
}

interface DropInsert {
  address: string;
  userId: number;
  amount: bigint;
  breakdown: Record<'top_posters' | 'top_yappers' | 'top_voters' | 'top_editors', bigint>;
  proof: string[];
}

/** Batched multi-row inserts from parallel arrays (one round trip per 2,000 drops). */
export async function insertDrops(db: Db, month: string, drops: DropInsert[]): Promise<void> {
  for (let i = 0; i < drops.length; i += 2000) {
    const batch = drops.slice(i, i + 2000);
    const col = (f: (d: DropInsert) => string) => batch.map(f);
    await sql`
      INSERT INTO reward_drops (month, address, user_id, amount, top_posters, top_yappers, top_voters, top_editors, proof)
      SELECT ${month}, t.address, t.user_id, t.amount::numeric, t.p::numeric, t.y::numeric, t.v::numeric, t.e::numeric,
             string_to_array(t.proof, ',')
      FROM unnest(${col((d) => d.address)}::text[], ${batch.map((d) => d.userId)}::int[],
                  ${col((d) => d.amount.toString())}::text[], ${col((d) => d.breakdown.top_posters.toString())}::text[],
                  ${col((d) => d.breakdown.top_yappers.toString())}::text[], ${col((d) => d.breakdown.top_voters.toString())}::text[],
                  ${col((d) => d.breakdown.top_editors.toString())}::text[], ${col((d) => d.proof.join(','))}::text[])
           AS t(address, user_id, amount, p, y, v, e, proof)`.execute(db);
  }
}

export async function listDistributions(db: Db, limit: number): Promise<DistributionRow[]> {
  const r = await sql<DistributionRow>`SELECT ${distributionColumns} FROM reward_distributions ORDER BY month DESC LIMIT ${limit}`.execute(db);
  return r.rows;
}

interface DropRow {
  month: string;
  address: string;
  user_id: number | null;
  amount: string;
  top_posters: string;
  top_yappers: string;
  top_voters: string;
  top_editors: string;
  proof: string[];
  merkle_root: string | null;
  created_at: Date;
}

const dropColumns = sql`d.month, d.address, d.user_id, d.amount::text AS amount, d.top_posters::text AS top_posters,
  d.top_yappers::text AS top_yappers, d.top_voters::text AS top_voters, d.top_editors::text AS top_editors, d.proof,
  r.merkle_root, r.created_at`;

export async function recentDropsOf(db: Db, userId: number, limit: number): Promise<DropRow[]> {
  const r = await sql<DropRow>`
    SELECT ${dropColumns} FROM reward_drops d JOIN reward_distributions r ON r.month = d.month
    WHERE d.user_id = ${userId} ORDER BY d.month DESC LIMIT ${limit}`.execute(db);
  return r.rows;
}

export async function dropOf(db: Db, month: string, address: string): Promise<DropRow | undefined> {
  const r = await sql<DropRow>`
    SELECT ${dropColumns} FROM reward_drops d JOIN reward_distributions r ON r.month = d.month
    WHERE d.month = ${month} AND d.address = ${getAddress(address)}`.execute(db);
  return r.rows[0];
}

/** Every drop of a month without proofs (the published leaf list), largest first. */
export async function dropsOfMonth(db: Db, month: string) {
  const r = await sql<Omit<DropRow, 'proof' | 'merkle_root' | 'created_at'>>`
    SELECT d.month, d.address, d.user_id, d.amount::text AS amount, d.top_posters::text AS top_posters,
           d.top_yappers::text AS top_yappers, d.top_voters::text AS top_voters, d.top_editors::text AS top_editors
    FROM reward_drops d WHERE d.month = ${month} ORDER BY d.amount DESC, d.address`.execute(db);
  return r.rows;
}
