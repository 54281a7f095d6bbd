/**
 * Settlement of a recorded x402 payment through the facilitator's POST /settle when the request
 * path did not (X402_SETTLEMENT_MODE=deferred, or a synchronous attempt that timed out and so may
 * or may not have sent the transfer), recording each step in payments.state:
 *   verified -> settling (each attempt; settle_attempts + 1) -> settled (transaction hash) | failed
 *  - A transient problem (network, timeout, facilitator 5xx or malformed answer) is thrown, for the
 *    caller to retry with backoff, until the last attempt, which fails the payment for good.
 *  - A refusal (HTTP 4xx or success: false: bad signature, insufficient balance, nonce used on
 *    chain...) is final: state failed, the payer is suspended for 24 h (src/payments/replay.ts).
 *  - After an indeterminate attempt (timeout: the facilitator may have sent the transfer), a later
 *    "nonce already used" answer means our own transfer went through: settled, hash unknown.
 * What the payment bought reacts in the same transaction (SettlementEffects: a sponsored post's ad).
 */
import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import type { Logger } from '../platform/logger.js';
import type { Redis } from '../platform/redis.js';
import { beginSettlement, markFailed, markSettled, orphanedPayments, recordSettleError, type PaymentRow } from './queries.js';
import { ReplayGuard } from './replay.js';
import { previousSettleError, settleOnce, transientNote } from './settle.js';

export interface SettlementDeps {
  config: Config;
  db: Db;
  redis: Redis;
  log: Logger;
  enqueue(name: 'settle-payment', payload: { payment_id: string }): Promise<unknown>;
}

/** What the paid-for article does when its payment settles or fails for good, in the payment's transaction. */
interface SettlementEffects {
  settled(trx: Transaction<Database>, articleId: number): Promise<unknown>;
  failed(trx: Transaction<Database>, articleId: number): Promise<unknown>;
}

export type SettlementResult =
  | { swept: number }
  | { state: 'final' }
  | { state: 'settled'; transaction: string | null }
  /** Failed for good: the caller must not retry. */
  | { state: 'failed'; message: string };

/** Payments still `verified` this long after their creation lost their settle job: the sweep enqueues them again. */
const SWEEP_AFTER_S = 60;

/** Enqueue settle-payment again for every payment whose job was lost. */
export async function sweepOrphanedPayments(deps: SettlementDeps): Promise<number> {
  const ids = await orphanedPayments(deps.db, SWEEP_AFTER_S);
  for (const id of ids) await deps.enqueue('settle-payment', { payment_id: id });
  return ids.length;
}

async function finishFailed(deps: SettlementDeps, effects: SettlementEffects, row: PaymentRow, reason: string, suspendPayer: boolean) {
  // The payment's failure and the article's reaction (with its events) commit together.
  await deps.db.transaction().execute(async (trx) => {
    await markFailed(trx, row.id, reason);
    if (row.article_id !== null) await effects.failed(trx, row.article_id);
  });
  if (suspendPayer) await new ReplayGuard(deps.redis, deps.config.QUEUE_PREFIX).suspend(row.payer);
  deps.log.warn({ paymentId: row.id, reason }, 'payment settlement failed');
}

/**
 * One settlement attempt of payment `paymentId` (attempt `attempt` of `attempts`). Throws on a
 * transient problem before the last attempt; returns `failed` when the payment failed for good.
 */
export async function settleRecordedPayment(
  deps: SettlementDeps,
  input: { paymentId: string; attempt: number; attempts: number },
  effects: SettlementEffects,
): Promise<SettlementResult> {
  const row = await beginSettlement(deps.db, input.paymentId);
  if (!row) return { state: 'final' };
  if (row.method !== 'x402' || !row.payload) return { state: 'failed', message: `payment ${row.id} is not an x402 payment` };
  const { paymentPayload, paymentRequirements } = row.payload as { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };

  if (row.valid_before && row.valid_before.getTime() <= Date.now()) {
    // Not the payer's fault (we were late): no suspension.
    await finishFailed(deps, effects, row, 'authorization expired before it could be settled', false);
    return { state: 'failed', message: `payment ${row.id}: authorization expired before settlement` };
  }

  const client = new HTTPFacilitatorClient({ url: deps.config.X402_FACILITATOR_URL, timeoutMs: deps.config.X402_FACILITATOR_TIMEOUT_MS });
  // settle_attempts counts this attempt: an earlier one that left no error behind ended with its
  // worker (SIGKILL, lost dyno) while the facilitator may have sent the transfer: indeterminate.
  const previous = previousSettleError(row);
  const outcome = await settleOnce(client, paymentPayload, paymentRequirements, previous);
  if (outcome.kind === 'settled') {
    await deps.db.transaction().execute(async (trx) => {
      await markSettled(trx, row.id, outcome.transaction);
      if (row.article_id !== null) await effects.settled(trx, row.article_id);
    });
    deps.log.info({ paymentId: row.id, transaction: outcome.transaction, attempt: input.attempt }, 'payment settled');
    return { state: 'settled', transaction: outcome.transaction };
  }
  if (outcome.kind === 'refused') {
    await finishFailed(deps, effects, row, outcome.reason, true);
    return { state: 'failed', message: `payment ${row.id} refused by the facilitator: ${outcome.reason}` };
  }
  const note = transientNote(outcome, previous);
  if (input.attempt >= input.attempts) {
    await finishFailed(deps, effects, row, `gave up after ${input.attempt} attempts: ${note}`, false);
    return { state: 'failed', message: `payment ${row.id}: settlement gave up: ${note}` };
  }
  await recordSettleError(deps.db, row.id, note);
  throw new Error(`payment ${row.id}: settlement attempt ${input.attempt} failed: ${note}`);
}
