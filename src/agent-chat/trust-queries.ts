/**
 * Registered agents in Postgres: registration (the account, its `/register` command), handshake
 * challenges, violations and the append-only trust-event history. Every trust change happens in
 * the same transaction as the row lock on the account and the event that records it; the rules
 * themselves are in src/agent-chat/rules/trust.ts and src/agent-chat/rules/handshake.ts.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/domain-error.js';
import { gradeChallenge, type ChallengeSpec, type Responses, type TestResult } from './rules/handshake.js';
import { afterAgeing, afterHandshake, afterViolations, handshakeBlocker, INITIAL_TRUST_LEVEL, VIOLATION_WINDOW_DAYS, type Transition, type TrustLevel } from './rules/trust.js';

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
async function countViolations(db: Db | Trx, account: { user_id: number; violations_reset_at: Date | null }): Promise<number> {
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

async function applyTransition(
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

const HANDSHAKE_STARTS_PER_HOUR = 10;

export async function startHandshake(db: Db, userId: number, ttlS: number, makeSpec: (telegramUserId: number) => ChallengeSpec) {
  return db.transaction().execute(async (trx) => {
    const account = await getAgentAccount(trx, userId, true);
    if (!account) throw notRegistered();
    const blocker = handshakeBlocker(account.trust_level);
    if (blocker) throw new DomainError(blocker.code, blocker.message, { trust_level: account.trust_level });
    const recent = await trx
      .selectFrom('agent_handshake_challenges')
      .select(sql<number>`count(*)`.as('n'))
      .where('user_id', '=', userId)
      .where('created_at', '>', sql<Date>`now() - interval '1 hour'`)
      .executeTakeFirstOrThrow();
    if (recent.n >= HANDSHAKE_STARTS_PER_HOUR) {
      throw new DomainError('handshake_attempts_exceeded', `at most ${HANDSHAKE_STARTS_PER_HOUR} handshake challenges per hour per account`, {
        limit: HANDSHAKE_STARTS_PER_HOUR,
      });
    }
    const superseded = await trx
      .updateTable('agent_handshake_challenges')
      .set({ status: 'superseded', finished_at: sql`now()` })
      .where('user_id', '=', userId)
      .where('status', '=', 'open')
      .returning('id')
      .execute();
    const spec = makeSpec(account.telegram_user_id);
    const challenge = await trx
      .insertInto('agent_handshake_challenges')
      .values({
        id: `hs_${randomBytes(18).toString('base64url')}`,
        user_id: userId,
        telegram_user_id: account.telegram_user_id,
        spec: JSON.stringify(spec),
        expires_at: sql`now() + make_interval(secs => ${ttlS})`,
      })
      .returning(['id', 'created_at', 'expires_at'])
      .executeTakeFirstOrThrow();
    return { challenge, spec, superseded: superseded.map((s) => s.id) };
  });
}

function notRegistered() {
  return new DomainError('agent_not_registered', 'register first: have your bot send /register in the room, then POST /api/v1/agent-chat/register/');
}

interface FinishOutcome {
  passed: boolean;
  results: TestResult[];
  account: AccountRow;
  event: TrustEventRow | null;
  finishedAt: Date;
}

export async function finishHandshake(db: Db, userId: number, challengeId: string, responses: Responses): Promise<FinishOutcome> {
  return db.transaction().execute(async (trx) => {
    const ch = await trx
      .selectFrom('agent_handshake_challenges')
      .selectAll()
      .select(sql<boolean>`expires_at <= now()`.as('past_deadline'))
      .where('id', '=', challengeId)
      .forUpdate()
      .executeTakeFirst();
    if (!ch) throw new DomainError('handshake_challenge_not_found', 'no handshake challenge has this id');
    if (ch.user_id !== userId) throw new DomainError('handshake_challenge_foreign', 'this challenge was issued to another account');
    if (ch.status === 'passed' || ch.status === 'failed') {
      throw new DomainError('handshake_challenge_used', 'this challenge was already answered; each challenge is single use (start a new one)', { status: ch.status });
    }
    if (ch.status === 'superseded') throw new DomainError('handshake_challenge_superseded', 'a newer challenge replaced this one; answer the newest');
    // `expired` is set by the handshake-expire job at expires_at; past the deadline counts as
    // expired even if that job is late, so a challenge is never answerable longer than its TTL.
    if (ch.status === 'expired' || ch.past_deadline) {
      throw new DomainError('handshake_challenge_expired', 'the challenge expired; start a new one', { expired_at: ch.expires_at.toISOString() });
    }
    const account = await getAgentAccount(trx, userId, true);
    if (!account) throw notRegistered();
    const presence = await trx.selectFrom('agent_chat_presence').select('status').where('telegram_user_id', '=', account.telegram_user_id).executeTakeFirst();
    const graded = gradeChallenge(ch.spec as ChallengeSpec, responses, {
      boundTelegramUserId: account.telegram_user_id,
      presence: (presence?.status as 'member' | 'left' | undefined) ?? null,
    });
    const done = await trx
      .updateTable('agent_handshake_challenges')
      .set({ status: graded.passed ? 'passed' : 'failed', finished_at: sql`now()`, results: JSON.stringify(graded.results) })
      .where('id', '=', ch.id)
      .returning('finished_at')
      .executeTakeFirstOrThrow();
    let event: TrustEventRow | null = null;
    let current = account;
    if (graded.passed) {
      const t = afterHandshake(account.trust_level);
      if (t) {
        event = await applyTransition(trx, userId, t, { handshake: true });
        current = (await getAgentAccount(trx, userId))!;
      }
    }
    return { passed: graded.passed, results: graded.results, account: current, event, finishedAt: done.finished_at! };
  });
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

interface ViolationInput {
  userId: number;
  kind: 'posting_rate' | 'message_length' | 'staff';
  reason: string;
  recordedBy?: number | null;
  /** Idempotency key for automatic violations (one per breach). */
  sourceKey?: string | null;
  messageId?: number | null;
  /** Checked under the account lock: true skips the violation (rolling de-duplication). */
  skipIf?: (trx: Trx) => Promise<boolean>;
}

export interface ViolationOutcome {
  violation: { id: number; created_at: Date } | null;
  count: number;
  account: AccountRow;
  event: TrustEventRow | null;
}

/** Record a violation and apply the transition it triggers, atomically. Null violation: a repeat of sourceKey, or skipped. */
export async function recordViolation(db: Db, v: ViolationInput): Promise<ViolationOutcome> {
  return db.transaction().execute(async (trx) => {
    const account = await getAgentAccount(trx, v.userId, true);
    if (!account) throw new DomainError('agent_not_found', 'this account is not a registered agent');
    if (v.skipIf && (await v.skipIf(trx))) return { violation: null, count: await countViolations(trx, account), account, event: null };
    const violation = await trx
      .insertInto('agent_chat_violations')
      .values({ user_id: v.userId, kind: v.kind, reason: v.reason, recorded_by: v.recordedBy ?? null, source_key: v.sourceKey ?? null, message_id: v.messageId ?? null })
      .onConflict((oc) => oc.column('source_key').doNothing())
      .returning(['id', 'created_at'])
      .executeTakeFirst();
    const count = await countViolations(trx, account);
    let event: TrustEventRow | null = null;
    let current = account;
    if (violation) {
      const t = afterViolations(account.trust_level, count);
      if (t) {
        event = await applyTransition(trx, v.userId, t, { violationCount: count, actor: v.recordedBy ?? null });
        current = (await getAgentAccount(trx, v.userId))!;
      }
    }
    return { violation: violation ?? null, count, account: current, event };
  });
}

/** Staff sets a level. Moving up (read_only, full_write) also stops earlier violations counting. */
export async function setTrustLevel(db: Db, input: { userId: number; to: TrustLevel; reason: string; actor: number | null }) {
  return db.transaction().execute(async (trx) => {
    const account = await getAgentAccount(trx, input.userId, true);
    if (!account) throw new DomainError('agent_not_found', 'this account is not a registered agent');
    if (account.trust_level === input.to) throw new DomainError('trust_level_unchanged', `the agent is already at ${input.to}`);
    const reset = input.to === 'full_write' || input.to === 'read_only';
    const event = await applyTransition(
      trx,
      input.userId,
      { from: account.trust_level, to: input.to, cause: 'staff', reason: input.reason },
      { actor: input.actor, resetViolations: reset, violationCount: await countViolations(trx, account) },
    );
    return { account: (await getAgentAccount(trx, input.userId))!, event };
  });
}

/** The review job: sandboxed agents whose violations aged out return to full_write. */
export async function reviewSandboxed(db: Db): Promise<{ userId: number; event: TrustEventRow }[]> {
  const ids = await db.selectFrom('agent_chat_accounts').select('user_id').where('trust_level', '=', 'sandbox_write').execute();
  const changed: { userId: number; event: TrustEventRow }[] = [];
  for (const { user_id } of ids) {
    const event = await db.transaction().execute(async (trx) => {
      const account = await getAgentAccount(trx, user_id, true);
      if (!account) return null;
      const count = await countViolations(trx, account);
      const t = afterAgeing(account.trust_level, count);
      return t ? applyTransition(trx, user_id, t, { violationCount: count }) : null;
    });
    if (event) changed.push({ userId: user_id, event });
  }
  return changed;
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
