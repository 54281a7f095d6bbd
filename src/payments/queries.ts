/**
 * Payments: the durable record of every accepted payment and its settlement state
 * (verified -> settling -> settled | failed). replay_key is unique: inserting a second payment
 * for the same authorization or transaction returns null.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../platform/db.js';

type PaymentState = 'verified' | 'settling' | 'settled' | 'failed';
type PaymentMethod = 'x402' | 'mainnet_transfer';

export function newPaymentId(): string {
  return `pay_${randomBytes(16).toString('base64url')}`;
}

export interface NewPayment {
  id: string;
  method: PaymentMethod;
  purpose: 'intel_report' | 'sponsored_post';
  replayKey: string;
  network: string;
  asset: string;
  payer: string;
  payTo: string;
  amountAtomic: string;
  state: PaymentState;
  validBefore: Date | null;
  /** x402: {paymentPayload, paymentRequirements}, what the settle job sends to the facilitator. */
  payload: unknown;
  transactionHash: string | null;
  resource: string;
  articleId?: number | null;
  userId?: number | null;
  /** Settlement attempts already made (1 when the request path settled it). */
  settleAttempts?: number;
  /**
   * The resource was delivered with this insert (default true). False only for a synchronous
   * settlement that timed out: the payer's retry delivers it once (markDelivered).
   */
  delivered?: boolean;
  lastError?: string | null;
}

/** Insert; null when the replay key was already used (the payment is a replay). */
export async function insertPayment(db: Db | Transaction<Database>, p: NewPayment): Promise<{ id: string } | null> {
  const row = await db
    .insertInto('payments')
    .values({
      id: p.id,
      method: p.method,
      purpose: p.purpose,
      replay_key: p.replayKey,
      network: p.network,
      asset: p.asset.toLowerCase(),
      payer: p.payer.toLowerCase(),
      pay_to: p.payTo.toLowerCase(),
      amount_atomic: p.amountAtomic,
      state: p.state,
      valid_before: p.validBefore,
      payload: p.payload === null || p.payload === undefined ? null : JSON.stringify(p.payload),
      transaction_hash: p.transactionHash,
      resource: p.resource,
      article_id: p.articleId ?? null,
      user_id: p.userId ?? null,
      settled_at: p.state === 'settled' ? new Date() : null,
      settle_attempts: p.settleAttempts ?? 0,
      delivered_at: p.delivered === false ? null : new Date(),
      last_error: p.lastError ?? null,
    })
    .onConflict((oc) => oc.column('replay_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ?? null;
}

export async function replayKeyUsed(db: Db, replayKey: string): Promise<boolean> {
  const r = await db.selectFrom('payments').select('id').where('replay_key', '=', replayKey).executeTakeFirst();
  return Boolean(r);
}

/** The payment that used this replay key (an authorization nonce or transaction hash), if any. */
export async function paymentByReplayKey(db: Db, replayKey: string) {
  return db.selectFrom('payments').selectAll().where('replay_key', '=', replayKey).executeTakeFirst();
}

/**
 * Deliver a settled payment's resource: delivered_at = now() unless it was delivered already.
 * False when another request delivered it first (or it is not settled): exactly once per payment.
 */
export async function markDelivered(db: Db | Transaction<Database>, id: string): Promise<boolean> {
  const r = await db
    .updateTable('payments')
    .set({ delivered_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('state', '=', 'settled')
    .where('delivered_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return Boolean(r);
}

/** Link a payment to the article it bought. */
export async function setPaymentArticle(trx: Transaction<Database>, id: string, articleId: number): Promise<void> {
  await trx.updateTable('payments').set({ article_id: articleId }).where('id', '=', id).execute();
}

export async function getPayment(db: Db, id: string) {
  return db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
}
export type PaymentRow = NonNullable<Awaited<ReturnType<typeof getPayment>>>;

/**
 * Take a payment for a settlement attempt: verified (or settling, after a failed attempt) ->
 * settling, attempts + 1. Null when it is already settled or failed (nothing to do).
 */
export async function beginSettlement(db: Db, id: string): Promise<PaymentRow | null> {
  const row = await db
    .updateTable('payments')
    .set({ state: 'settling', settle_attempts: sql`settle_attempts + 1`, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('state', 'in', ['verified', 'settling'])
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function recordSettleError(db: Db, id: string, error: string): Promise<void> {
  await db
    .updateTable('payments')
    .set({ last_error: error.slice(0, 500), updated_at: sql`now()` })
    .where('id', '=', id)
    .execute();
}

export async function markSettled(db: Db | Transaction<Database>, id: string, transactionHash: string | null): Promise<void> {
  await db
    .updateTable('payments')
    .set({ state: 'settled', transaction_hash: transactionHash, settled_at: sql`now()`, updated_at: sql`now()`, last_error: null })
    .where('id', '=', id)
    .where('state', '!=', 'settled')
    .execute();
}

export async function markFailed(db: Db | Transaction<Database>, id: string, error: string): Promise<void> {
  await db
    .updateTable('payments')
    .set({ state: 'failed', last_error: error.slice(0, 500), updated_at: sql`now()` })
    .where('id', '=', id)
    .where('state', 'in', ['verified', 'settling'])
    .execute();
}

/** x402 payments still `verified` after `olderThanS` (their settle job was lost): the sweep re-enqueues them. */
export async function orphanedPayments(db: Db, olderThanS: number, limit = 100): Promise<string[]> {
  const rows = await db
    .selectFrom('payments')
    .select('id')
    .where('method', '=', 'x402')
    .where('state', '=', 'verified')
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanS})`)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
