/**
 * settle-payment: settle an x402 payment through the facilitator's POST /settle when the request
 * path did not (X402_SETTLEMENT_MODE=deferred, or a synchronous attempt that timed out and so may
 * or may not have sent the transfer), at X402_FACILITATOR_URL, recording each step in payments.state:
 *   verified -> settling (each attempt; settle_attempts + 1) -> settled (transaction hash) | failed
 *  - Transient problems (network, timeout, facilitator 5xx or malformed answer) are retried with
 *    exponential backoff (6 attempts, 1 s doubling: all within the authorization's validity).
 *  - A refusal (HTTP 4xx or success: false: bad signature, insufficient balance, nonce used on
 *    chain...) is final: state failed, the payer is suspended for 24 h (src/payments/replay.ts).
 *  - After an indeterminate attempt (timeout: the facilitator may have sent the transfer), a later
 *    "nonce already used" answer means our own transfer went through: settled, hash unknown.
 *  - A sponsored post's ad gets is_paid = true on success and sponsored_payment_failed on failure.
 * Scheduled with {} it sweeps: x402 payments still `verified` after 60 s (their job was lost) are
 * enqueued again under the same deterministic job id.
 */
import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { z } from 'zod';
import { ReplayGuard } from '../src/payments/index.js';
import { previousSettleError, settleOnce, transientNote } from '../src/payments/index.js';
import { beginSettlement, markFailed, markSettled, orphanedPayments, recordSettleError, type PaymentRow } from '../src/payments/index.js';
import { failAdPayment, markAdPaid } from '../src/sponsored/index.js';
import { defaultJobOptions, defineJob, PermanentJobError, type JobDeps } from './define.js';

const payload = z
  .object({
    payment_id: z
      .string()
      .regex(/^pay_[A-Za-z0-9_-]{22}$/)
      .optional(),
  })
  .default({});

const ATTEMPTS = 6;
const SWEEP_AFTER_S = 60;

export { classifySettle } from '../src/payments/index.js';

async function finishFailed(deps: JobDeps, row: PaymentRow, reason: string, suspendPayer: boolean) {
  // The payment's failure and the ad's kill (with its news.killed event) commit together.
  await deps.db.transaction().execute(async (trx) => {
    await markFailed(trx, row.id, reason);
    if (row.article_id !== null) await failAdPayment(trx, row.article_id);
  });
  if (suspendPayer) await new ReplayGuard(deps.redis, deps.config.QUEUE_PREFIX).suspend(row.payer);
  deps.log.warn({ paymentId: row.id, reason }, 'payment settlement failed');
}

export const job = defineJob({
  name: 'settle-payment',
  payload,
  options: { ...defaultJobOptions, attempts: ATTEMPTS, backoffMs: 1000, concurrency: 8, jobId: (p) => (p.payment_id ? `settle-${p.payment_id}` : undefined) },
  async run(p, deps, ctx) {
    if (!p.payment_id) {
      const ids = await orphanedPayments(deps.db, SWEEP_AFTER_S);
      for (const id of ids) await deps.enqueue('settle-payment', { payment_id: id });
      return { swept: ids.length };
    }
    const row = await beginSettlement(deps.db, p.payment_id);
    if (!row) return { state: 'final' as const };
    if (row.method !== 'x402' || !row.payload) throw new PermanentJobError(`payment ${row.id} is not an x402 payment`);
    const { paymentPayload, paymentRequirements } = row.payload as { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };

    if (row.valid_before && row.valid_before.getTime() <= Date.now()) {
      // Not the payer's fault (we were late): no suspension.
      await finishFailed(deps, row, 'authorization expired before it could be settled', false);
      throw new PermanentJobError(`payment ${row.id}: authorization expired before settlement`);
    }

    const client = new HTTPFacilitatorClient({ url: deps.config.X402_FACILITATOR_URL, timeoutMs: deps.config.X402_FACILITATOR_TIMEOUT_MS });
    // settle_attempts counts this attempt: an earlier one that left no error behind ended with its
    // worker (SIGKILL, lost dyno) while the facilitator may have sent the transfer: indeterminate.
    const previous = previousSettleError(row);
    const outcome = await settleOnce(client, paymentPayload, paymentRequirements, previous);
    if (outcome.kind === 'settled') {
      await deps.db.transaction().execute(async (trx) => {
        await markSettled(trx, row.id, outcome.transaction);
        if (row.article_id !== null) await markAdPaid(trx, row.article_id);
      });
      deps.log.info({ paymentId: row.id, transaction: outcome.transaction, attempt: ctx.attempt }, 'payment settled');
      return { state: 'settled' as const, transaction: outcome.transaction };
    }
    if (outcome.kind === 'refused') {
      await finishFailed(deps, row, outcome.reason, true);
      throw new PermanentJobError(`payment ${row.id} refused by the facilitator: ${outcome.reason}`);
    }
    const note = transientNote(outcome, previous);
    if (ctx.attempt >= ATTEMPTS) {
      await finishFailed(deps, row, `gave up after ${ctx.attempt} attempts: ${note}`, false);
      throw new PermanentJobError(`payment ${row.id}: settlement gave up: ${note}`);
    }
    await recordSettleError(deps.db, row.id, note);
    throw new Error(`payment ${row.id}: settlement attempt ${ctx.attempt} failed: ${note}`);
  },
});
