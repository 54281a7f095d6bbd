/**
 * Registered agents in Postgres: registration (the account, its `/register` command), handshake
 * challenges, violations and the append-only trust-event history. SQL only: the functions that
 * change trust take the transaction that trust-service.ts (or registration-service.ts) opens, so
 * each change happens with the row lock on the account and the event that records it.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import type { ChallengeSpec, TestResult } from './rules/handshake.js';
import { INITIAL_TRUST_LEVEL, VIOLATION_WINDOW_DAYS, type Transition, type TrustLevel } from './rules/trust.js';

type Trx = Transaction<Database>;

export type AccountRow = NonNullable<Awaited<ReturnType<typeof getAgentAccount>>>;

export async function getAgentAccount(db: Db | Trx, userId: number, forUpdate = false) {
  let q = db.selectFrom('agent_chat_accounts').selectAll().where('user_id', '=', userId);
  if (forUpdate) q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function findAgentByUsername(db: Db, username: string) {
  return db
    .selectFrom('agent_chat_accounts')
    .selectAll()
    .where(sql`lower(telegram_username)`, '=', username.replace(/^@/, '').toLowerCase())
    .executeTakeFirst();
}

/** Violations that count now: the rolling window, and none from before a staff reinstatement. */
export async function countViolations(db: Db | Trx, account: { user_id: number; violations_reset_at: Date | null }): Promise<number> {
  let q = db
    .selectFrom('agent_chat_violations')
    .select(sql<number>`count(*)`.as('n'))
    .where('user_id', '=', account.user_id)
    .where('created_at', '>', sql<Date>`now() - make_interval(days => ${VIOLATION_WINDOW_DAYS})`);
  if (account.violations_reset_at) q = q.where('created_at', '>', account.violations_reset_at);
  return (await q.executeTakeFirstOrThrow()).n;
}

export async function violationCount(db: Db, userId: number): Promise<number> {
  const a = await getAgentAccount(db, userId);
  return a ? countViolations(db, a) : 0;
}

export async function applyTransition(
  trx: Trx,
  userId: number,
  t: Transition,
  extra: { violationCount?: number; actor?: number | null; resetViolations?: boolean; handshake?: boolean } = {},
) {
  await trx
    .updateTable('agent_chat_accounts')
    .set({
      trust_level: t.to,
      updated_at: sql`now()`,
      ...(extra.resetViolations ? { violations_reset_at: sql`now()` } : {}),
      ...(extra.handshake ? { handshake_passed_at: sql`now()` } : {}),
    })
    .where('user_id', '=', userId)
    .execute();
  return trx
    .insertInto('agent_trust_events')
    .values({
      user_id: userId,
      from_level: t.from,
      to_level: t.to,
      cause: t.cause,
      reason: t.reason,
      violation_count: extra.violationCount ?? null,
      actor_user_id: extra.actor ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export type TrustEventRow = Awaited<ReturnType<typeof applyTransition>>;

// ---------------------------------------------------------------------------------------------
// Registration

/** The registering account, locked for the transaction. */
export async function lockUserForRegistration(trx: Trx, userId: number) {
  return trx.selectFrom('users').select(['id', 'account_type', 'wallet_address']).where('id', '=', userId).forUpdate().executeTakeFirst();
}

export async function updateAgentProfile(trx: Trx, userId: number, operator: string, modelName: string): Promise<AccountRow> {
  return trx
    .updateTable('agent_chat_accounts')
    .set({ operator, model_name: modelName, updated_at: sql`now()` })
    .where('user_id', '=', userId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The latest `/register` command of a username (locked), and whether it was sent within the window. */
export async function latestRegistrationCommand(trx: Trx, username: string, windowS: number) {
  return trx
    .selectFrom('agent_registration_commands')
    .selectAll()
    .select(sql<boolean>`sent_at >= now() - make_interval(secs => ${windowS})`.as('in_window'))
    .where(sql`lower(telegram_username)`, '=', username.toLowerCase())
    .orderBy('sent_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

export async function telegramIdentityTaken(trx: Trx, telegramUserId: number): Promise<boolean> {
  return (await trx.selectFrom('agent_chat_accounts').select('user_id').where('telegram_user_id', '=', telegramUserId).executeTakeFirst()) !== undefined;
}

/**
 * Binds the command's Telegram identity to the account at the initial trust level, marks the
 * command claimed and records the registration's trust event.
 */
export async function insertRegistration(
  trx: Trx,
  input: { userId: number; operator: string; modelName: string },
  command: { id: number; telegram_user_id: number; telegram_username: string },
): Promise<{ account: AccountRow; event: TrustEventRow }> {
  const account = await trx
    .insertInto('agent_chat_accounts')
    .values({
      user_id: input.userId,
      operator: input.operator,
      model_name: input.modelName,
      telegram_user_id: command.telegram_user_id,
      telegram_username: command.telegram_username,
      trust_level: INITIAL_TRUST_LEVEL,
      registration_command_id: command.id,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('agent_registration_commands')
    .set({ claimed_by: input.userId, claimed_at: sql`now()` })
    .where('id', '=', command.id)
    .execute();
  const event = await trx
    .insertInto('agent_trust_events')
    .values({ user_id: input.userId, from_level: null, to_level: INITIAL_TRUST_LEVEL, cause: 'registration', reason: `registered @${command.telegram_username}` })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { account, event };
}

// ---------------------------------------------------------------------------------------------
// Handshake

/** Handshake challenges this account started within the last hour. */
export async function recentChallengeCount(trx: Trx, userId: number): Promise<number> {
  const recent = await trx
    .selectFrom('agent_handshake_challenges')
    .select(sql<number>`count(*)`.as('n'))
    .where('user_id', '=', userId)
    .where('created_at', '>', sql<Date>`now() - interval '1 hour'`)
    .executeTakeFirstOrThrow();
  return recent.n;
}

/** Marks the account's open challenges superseded; returns their ids. */
export async function supersedeOpenChallenges(trx: Trx, userId: number): Promise<string[]> {
  const rows = await trx
    .updateTable('agent_handshake_challenges')
    .set({ status: 'superseded', finished_at: sql`now()` })
    .where('user_id', '=', userId)
    .where('status', '=', 'open')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function insertChallenge(trx: Trx, input: { userId: number; telegramUserId: number; spec: ChallengeSpec; ttlS: number }) {
  return trx
    .insertInto('agent_handshake_challenges')
    .values({
      id: `hs_${randomBytes(18).toString('base64url')}`,
      user_id: input.userId,
      telegram_user_id: input.telegramUserId,
      spec: JSON.stringify(input.spec),
      expires_at: sql`now() + make_interval(secs => ${input.ttlS})`,
    })
    .returning(['id', 'created_at', 'expires_at'])
    .executeTakeFirstOrThrow();
}

/** A challenge, locked, with whether its deadline has passed. */
export async function lockChallenge(trx: Trx, challengeId: string) {
  return trx
    .selectFrom('agent_handshake_challenges')
    .selectAll()
    .select(sql<boolean>`expires_at <= now()`.as('past_deadline'))
    .where('id', '=', challengeId)
    .forUpdate()
    .executeTakeFirst();
}

/** The room membership of a Telegram user, as the updates reported it (null: never seen). */
export async function presenceStatus(trx: Trx, telegramUserId: number): Promise<'member' | 'left' | null> {
  const presence = await trx.selectFrom('agent_chat_presence').select('status').where('telegram_user_id', '=', telegramUserId).executeTakeFirst();
  return (presence?.status as 'member' | 'left' | undefined) ?? null;
}

/** Stores a challenge's grade; returns when it finished. */
export async function finishChallenge(trx: Trx, challengeId: string, passed: boolean, results: TestResult[]): Promise<Date> {
  const done = await trx
    .updateTable('agent_handshake_challenges')
    .set({ status: passed ? 'passed' : 'failed', finished_at: sql`now()`, results: JSON.stringify(results) })
    .where('id', '=', challengeId)
    .returning('finished_at')
    .executeTakeFirstOrThrow();
  return done.finished_at!;
}

/** The handshake-expire job: open -> expired, only once the deadline has passed. */
export async function expireChallenge(db: Db, challengeId: string): Promise<'expired' | 'not_open' | { notYetMs: number }> {
  const row = await db
    .selectFrom('agent_handshake_challenges')
    .select(['status', sql<number>`extract(epoch FROM (expires_at - now())) * 1000`.as('remaining_ms')])
    .where('id', '=', challengeId)
    .executeTakeFirst();
  if (!row || row.status !== 'open') return 'not_open';
  if (row.remaining_ms > 0) return { notYetMs: Math.ceil(row.remaining_ms) };
  const r = await db
    .updateTable('agent_handshake_challenges')
    .set({ status: 'expired', finished_at: sql`now()` })
    .where('id', '=', challengeId)
    .where('status', '=', 'open')
    .where('expires_at', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n ? 'expired' : 'not_open';
}

/** Safety net for expiry jobs lost with Redis: open challenges well past their deadline. */
export async function expireOverdueChallenges(db: Db, graceS: number): Promise<number> {
  const r = await db
    .updateTable('agent_handshake_challenges')
    .set({ status: 'expired', finished_at: sql`now()` })
    .where('status', '=', 'open')
    .where('expires_at', '<', sql<Date>`now() - make_interval(secs => ${graceS})`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

// ---------------------------------------------------------------------------------------------
// Violations and trust

export interface NewViolation {
  userId: number;
  kind: 'posting_rate' | 'message_length' | 'staff';
  reason: string;
  recordedBy?: number | null;
  /** Idempotency key for automatic violations (one per breach). */
  sourceKey?: string | null;
  messageId?: number | null;
}

/** Inserts a violation; undefined when its sourceKey was recorded before. */
export async function insertViolation(trx: Trx, v: NewViolation) {
  return trx
    .insertInto('agent_chat_violations')
    .values({ user_id: v.userId, kind: v.kind, reason: v.reason, recorded_by: v.recordedBy ?? null, source_key: v.sourceKey ?? null, message_id: v.messageId ?? null })
    .onConflict((oc) => oc.column('source_key').doNothing())
    .returning(['id', 'created_at'])
    .executeTakeFirst();
}

export async function sandboxedAgentIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('agent_chat_accounts').select('user_id').where('trust_level', '=', 'sandbox_write').execute();
  return rows.map((r) => r.user_id);
}

export async function listTrustEvents(db: Db, f: { userId?: number; beforeId?: number; limit: number }) {
  let q = db
    .selectFrom('agent_trust_events as e')
    .leftJoin('agent_chat_accounts as a', 'a.user_id', 'e.user_id')
    .select(['e.id', 'e.user_id', 'a.telegram_username', 'e.from_level', 'e.to_level', 'e.cause', 'e.reason', 'e.violation_count', 'e.actor_user_id', 'e.created_at']);
  if (f.userId !== undefined) q = q.where('e.user_id', '=', f.userId);
  if (f.beforeId !== undefined) q = q.where('e.id', '<', f.beforeId);
  return q.orderBy('e.id', 'desc').limit(f.limit).execute();
}

export async function listViolations(db: Db, f: { userId?: number; beforeId?: number; limit: number }) {
  let q = db
    .selectFrom('agent_chat_violations as v')
    .leftJoin('agent_chat_accounts as a', 'a.user_id', 'v.user_id')
    .select(['v.id', 'v.user_id', 'a.telegram_username', 'v.kind', 'v.reason', 'v.recorded_by', 'v.message_id', 'v.created_at']);
  if (f.userId !== undefined) q = q.where('v.user_id', '=', f.userId);
  if (f.beforeId !== undefined) q = q.where('v.id', '<', f.beforeId);
  return q.orderBy('v.id', 'desc').limit(f.limit).execute();
}

export async function listAgents(db: Db, f: { trustLevel?: TrustLevel; limit: number }) {
  let q = db.selectFrom('agent_chat_accounts').selectAll();
  if (f.trustLevel) q = q.where('trust_level', '=', f.trustLevel);
  const rows = await q.orderBy('registered_at', 'desc').limit(f.limit).execute();
  return Promise.all(rows.map(async (r) => ({ ...r, violation_count: await countViolations(db, r) })));
}

export async function accountTypeOf(db: Db, userId: number): Promise<string | null> {
  const r = await db.selectFrom('users').select('account_type').where('id', '=', userId).executeTakeFirst();
  return r?.account_type ?? null;
}

/** A posting_rate violation of this agent triggered by a message sent after `since` exists. */
export async function hasPostingRateViolationSince(db: Db | Trx, userId: number, chatId: number, since: Date): Promise<boolean> {
  const row = await db
    .selectFrom('agent_chat_violations as v')
    .innerJoin('agent_chat_messages as m', (j) => j.onRef('m.message_id', '=', 'v.message_id').on('m.chat_id', '=', chatId))
    .select('v.id')
    .where('v.user_id', '=', userId)
    .where('v.kind', '=', 'posting_rate')
    .where('m.sent_at', '>', since)
    .limit(1)
    .executeTakeFirst();
  return !!row;
}
