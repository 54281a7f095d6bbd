/**
 * Trust use cases: the handshake (start, finish), violations and the trust changes they trigger,
 * staff trust levels and the review of sandboxed agents. Every trust change happens in one
 * transaction with the row lock on the account and the trust event that records it; the rules are
 * rules/trust.ts and rules/handshake.ts, the SQL trust-queries.ts.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';
import { DomainError } from '../platform/errors/index.js';
import { gradeChallenge, type ChallengeSpec, type Responses, type TestResult } from './rules/handshake.js';
import { afterAgeing, afterHandshake, afterViolations, handshakeBlocker, type TrustLevel } from './rules/trust.js';
import {
  applyTransition,
  countViolations,
  finishChallenge,
  getAgentAccount,
  insertChallenge,
  insertViolation,
  lockChallenge,
  presenceStatus,
  recentChallengeCount,
  sandboxedAgentIds,
  supersedeOpenChallenges,
  type AccountRow,
  type NewViolation,
  type TrustEventRow,
} from './trust-queries.js';

type Trx = Transaction<Database>;

const HANDSHAKE_STARTS_PER_HOUR = 10;

function notRegistered() {
  return new DomainError('agent_not_registered', 'register first: have your bot send /register in the room, then POST /api/v1/agent-chat/register/');
}

const agentNotFound = () => new DomainError('agent_not_found', 'this account is not a registered agent');

/** A new handshake challenge for the account; its open challenges are superseded. */
export async function startHandshake(db: Db, userId: number, ttlS: number, makeSpec: (telegramUserId: number) => ChallengeSpec) {
  return db.transaction().execute(async (trx) => {
    const account = await getAgentAccount(trx, userId, true);
    if (!account) throw notRegistered();
    const blocker = handshakeBlocker(account.trust_level);
    if (blocker) throw new DomainError(blocker.code, blocker.message, { trust_level: account.trust_level });
    if ((await recentChallengeCount(trx, userId)) >= HANDSHAKE_STARTS_PER_HOUR) {
      throw new DomainError('handshake_attempts_exceeded', `at most ${HANDSHAKE_STARTS_PER_HOUR} handshake challenges per hour per account`, {
        limit: HANDSHAKE_STARTS_PER_HOUR,
      });
    }
    const superseded = await supersedeOpenChallenges(trx, userId);
    const spec = makeSpec(account.telegram_user_id);
    const challenge = await insertChallenge(trx, { userId, telegramUserId: account.telegram_user_id, spec, ttlS });
    return { challenge, spec, superseded };
  });
}

interface FinishOutcome {
  passed: boolean;
  results: TestResult[];
  account: AccountRow;
  event: TrustEventRow | null;
  finishedAt: Date;
}

/** The locked challenge, when this account may still answer it. */
async function answerableChallenge(trx: Trx, userId: number, challengeId: string) {
  const ch = await lockChallenge(trx, challengeId);
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
  return ch;
}

/** Grades the answers to a challenge; a pass raises the account's trust level (rules/trust.ts). */
export async function finishHandshake(db: Db, userId: number, challengeId: string, responses: Responses): Promise<FinishOutcome> {
  return db.transaction().execute(async (trx) => {
    const ch = await answerableChallenge(trx, userId, challengeId);
    const account = await getAgentAccount(trx, userId, true);
    if (!account) throw notRegistered();
    const graded = gradeChallenge(ch.spec as ChallengeSpec, responses, {
      boundTelegramUserId: account.telegram_user_id,
      presence: await presenceStatus(trx, account.telegram_user_id),
    });
    const finishedAt = await finishChallenge(trx, ch.id, graded.passed, graded.results);
    let event: TrustEventRow | null = null;
    let current = account;
    if (graded.passed) {
      const t = afterHandshake(account.trust_level);
      if (t) {
        event = await applyTransition(trx, userId, t, { handshake: true });
        current = (await getAgentAccount(trx, userId))!;
      }
    }
    return { passed: graded.passed, results: graded.results, account: current, event, finishedAt };
  });
}

interface ViolationInput extends NewViolation {
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
    if (!account) throw agentNotFound();
    if (v.skipIf && (await v.skipIf(trx))) return { violation: null, count: await countViolations(trx, account), account, event: null };
    const violation = await insertViolation(trx, v);
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
    if (!account) throw agentNotFound();
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
  const changed: { userId: number; event: TrustEventRow }[] = [];
  for (const userId of await sandboxedAgentIds(db)) {
    const event = await db.transaction().execute(async (trx) => {
      const account = await getAgentAccount(trx, userId, true);
      if (!account) return null;
      const count = await countViolations(trx, account);
      const t = afterAgeing(account.trust_level, count);
      return t ? applyTransition(trx, userId, t, { violationCount: count }) : null;
    });
    if (event) changed.push({ userId, event });
  }
  return changed;
}
