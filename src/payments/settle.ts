/**
 * One facilitator POST /settle and what its answer means, shared by the request path (sync
 * settlement, src/payments/paywall.ts) and the settle-payment job (deferred settlement and the
 * resolution of indeterminate attempts).
 */
import { FacilitatorTimeoutError, HTTPFacilitatorClient } from '@x402/core/http';
import { SettleError, type PaymentPayload, type PaymentRequirements, type SettleResponse } from '@x402/core/types';

/** Prefix of payments.last_error after an attempt whose outcome is unknown (the transfer may have been sent). */
export const INDETERMINATE = 'indeterminate:';

type SettleOutcome = { kind: 'settled'; transaction: string | null } | { kind: 'refused'; reason: string } | { kind: 'transient'; reason: string; indeterminate: boolean };

/** Classify one facilitator answer (pure). */
export function classifySettle(res: SettleResponse | null, err: unknown, previousError: string | null): SettleOutcome {
  if (res?.success) return { kind: 'settled', transaction: res.transaction || null };
  let reason: string;
  if (res) reason = res.errorReason ?? 'settle_failed';
  else if (err instanceof SettleError) {
    if (err.statusCode >= 500) return { kind: 'transient', reason: `facilitator ${err.statusCode}: ${err.errorReason ?? 'error'}`, indeterminate: false };
    reason = err.errorReason ?? `facilitator ${err.statusCode}`;
  } else if (err instanceof FacilitatorTimeoutError) return { kind: 'transient', reason: 'facilitator timeout', indeterminate: true };
  else return { kind: 'transient', reason: (err as Error)?.message?.slice(0, 200) ?? 'facilitator unreachable', indeterminate: false };
  if (/nonce_already_used/.test(reason) && previousError?.startsWith(INDETERMINATE)) return { kind: 'settled', transaction: null };
  return { kind: 'refused', reason };
}

/** Ask the facilitator to settle once and classify the answer. */
export async function settleOnce(client: HTTPFacilitatorClient, payload: PaymentPayload, req: PaymentRequirements, previousError: string | null = null): Promise<SettleOutcome> {
  let res: SettleResponse | null = null;
  let error: unknown = null;
  try {
    res = await client.settle(payload, req);
  } catch (err) {
    error = err;
  }
  return classifySettle(res, error, previousError);
}

/**
 * payments.last_error after a transient attempt: once one attempt was indeterminate (the transfer
 * may have been sent), every later note keeps the prefix, so that a later "nonce already used"
 * still reads as our own transfer having gone through.
 */
export function transientNote(outcome: { reason: string; indeterminate: boolean }, previousError: string | null): string {
  return `${outcome.indeterminate || previousError?.startsWith(INDETERMINATE) ? INDETERMINATE : ''}${outcome.reason}`;
}

/**
 * What a new attempt must know about the earlier ones: the last error, or (none recorded although
 * an attempt was made) an attempt that ended without an answer, whose transfer may have been sent.
 */
export function previousSettleError(row: { last_error: string | null; settle_attempts: number }): string | null {
  return row.last_error ?? (row.settle_attempts > 1 ? `${INDETERMINATE}previous attempt ended without an answer` : null);
}
