/**
 * Paid access as use cases, independent of HTTP: the x402 v2 flow, API-key tiers and the
 * mainnet-transfer fallback, in two phases so that a payment is consumed only when the response is
 * actually served:
 *
 *   const grant = await payments.authorize(request, offer)   // PaymentRejection on any problem; nothing consumed
 *   ...compute the response...
 *   const { headers } = await grant.commit()                  // claim nonce/tx (Redis NX + Postgres), settle
 *                                                             // (sync) or enqueue settlement (deferred),
 *                                                             // record; headers carry PAYMENT-RESPONSE
 *
 * Why not x402HTTPResourceServer.processHTTPRequest/processSettlement: it treats an undecodable
 * PAYMENT-SIGNATURE as "no payment" (one generic 402), folds accepted-field mismatches into
 * "No matching payment requirements", verifies through a facilitator round trip and settles
 * before the response is sent. We keep its wire format (the @x402/core types and header codecs,
 * the @x402/evm EIP-3009 types and reason strings) and do the rest as the v2 spec describes:
 * local signature verification, distinct error codes, and settlement as X402_SETTLEMENT_MODE says:
 *  - sync (default): commit() settles through the facilitator before the response is written; the
 *    PAYMENT-RESPONSE is the facilitator's own answer (success, transaction, network, payer). A refusal
 *    is 402 payment_settlement_failed with PAYMENT-RESPONSE success false, and nothing is delivered.
 *  - deferred: commit() records the verified payment and enqueues settle-payment; PAYMENT-RESPONSE
 *    says success false, errorReason "settlement_pending", transaction "" and extra.status_url,
 *    because nothing has been settled yet (the v2 transport defines success as settlement success).
 */
import { HTTPFacilitatorClient, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types';
import type { Transaction } from 'kysely';
import { getAddress, type Address } from 'viem';
import type { Database } from '../../db/schema.js';
import type { Tier } from '../identity/index.js';
import type { Db } from '../platform/db.js';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { API_PREFIX } from '../platform/http/openapi.js';
import {
  beginSettlement,
  getPayment,
  insertPayment,
  markDelivered,
  markFailed,
  markSettled,
  newPaymentId,
  paymentByReplayKey,
  recordSettleError,
  replayKeyUsed,
  setPaymentArticle,
  type NewPayment,
  type PaymentRow,
} from './queries.js';
import { PaymentRejection, reject, unavailable } from './errors.js';
import { MainnetVerifier, parseFallbackHeaders } from './mainnet.js';
import { mainnetReplayKey, ReplayGuard, x402ReplayKey } from './replay.js';
import { INDETERMINATE, previousSettleError, settleOnce, transientNote } from './settle.js';
import {
  formatUnits6,
  MAINNET_CHAIN_ID,
  MAINNET_STABLECOINS,
  paymentRequired,
  paymentRequiredHeaders,
  paymentRequirements,
  PaymentConfigError,
  resolveAsset,
  type AssetInfo,
  type Offer,
} from './requirements.js';
import { verifyExactPayment, type VerifiedAuthorization } from './x402-verify.js';

/** Attach the purchased thing inside the payment's transaction; returns the article id it paid for, if any. */
type Attach = (trx: Transaction<Database>, paymentId: string) => Promise<number | null>;

/** What a commit delivers: the payment, what it bought, and the response headers (PAYMENT-RESPONSE, Cache-Control). */
interface Committed {
  paymentId: string;
  articleId: number | null;
  settlement: SettleResponse | null;
  headers: Record<string, string>;
}

export type Grant =
  | { kind: 'api_key'; tier: Tier }
  | {
      kind: 'payment';
      method: 'x402' | 'mainnet_transfer';
      payer: Address;
      /** True when commit() settles before returning (sync x402, or a mainnet transfer, settled already). */
      settled: boolean;
      /**
       * Consume the payment (settling it first in sync mode) and record it; throws 402
       * payment_replayed if another request got there first, 402 payment_settlement_failed when the
       * facilitator refuses, 503 when it cannot say. `settlement` is the facilitator's answer (sync x402).
       */
      commit(attach?: Attach): Promise<Committed>;
    };

/** A paid request as the payment use cases see it: its payment headers ('' when absent) and its caller. */
export interface PaymentRequest {
  /** PAYMENT-SIGNATURE (x402 v2). */
  signature: string;
  /** X-Payment-Tx and X-Payment-From (mainnet transfer fallback). */
  txHash: string;
  from: string;
  /** An X-PAYMENT header (x402 v1) was sent. */
  legacyX402: boolean;
  apiKeyTier: Tier | null;
  /** "METHOD /path" of the paid resource. */
  resource: string;
  userId: number | null;
}

export interface AuthorizeOptions {
  /** API-key tiers that include this resource (the report: builder, enterprise). */
  apiKeyTiers?: Tier[];
}

/** A verified x402 authorization for one offer, not consumed yet. */
interface X402Authorization {
  offer: Offer;
  req: PaymentRequirements;
  v: VerifiedAuthorization;
  replayKey: string;
  claimTtlS: number;
  request: PaymentRequest;
}

/** Rejections toHttpError produced: they carry the client's payment options already. */
const shaped = new WeakSet<PaymentRejection>();

const NO_STORE = { 'Cache-Control': 'private, no-store' };

/** Insert the payment and attach what it bought in one transaction; null when its replay key was used before. */
async function insertWithAttachment(db: Db, row: NewPayment, attach?: Attach): Promise<{ articleId: number | null } | null> {
  return db.transaction().execute(async (trx) => {
    if (!(await insertPayment(trx, row))) return null;
    const articleId = attach ? await attach(trx, row.id) : null;
    if (articleId !== null) await setPaymentArticle(trx, row.id, articleId);
    return { articleId };
  });
}

/** Mark a settled payment delivered and attach what it bought; null when another request delivered it first. */
async function deliverWithAttachment(db: Db, paymentId: string, attach?: Attach): Promise<{ articleId: number | null } | null> {
  return db.transaction().execute(async (trx) => {
    if (!(await markDelivered(trx, paymentId))) return null;
    const articleId = attach ? await attach(trx, paymentId) : null;
    if (articleId !== null) await setPaymentArticle(trx, paymentId, articleId);
    return { articleId };
  });
}

function x402Row(
  a: X402Authorization,
  paymentId: string,
  state: 'verified' | 'settled',
  transactionHash: string | null,
  delivered = true,
  lastError: string | null = null,
): NewPayment {
  return {
    id: paymentId,
    method: 'x402',
    purpose: a.offer.purpose,
    replayKey: a.replayKey,
    network: a.req.network,
    asset: a.req.asset,
    payer: a.v.payer,
    payTo: a.req.payTo,
    amountAtomic: a.v.value.toString(),
    state,
    validBefore: new Date(Number(a.v.validBefore) * 1000),
    payload: { paymentPayload: a.v.paymentPayload, paymentRequirements: a.req },
    transactionHash,
    resource: a.request.resource,
    userId: a.request.userId,
    settleAttempts: state === 'settled' ? 1 : 0,
    delivered,
    lastError,
  };
}

function once<A extends unknown[], R>(fn: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
  let p: Promise<R> | undefined;
  return (...a) => (p ??= fn(...a));
}

export class PaymentService {
  private asset: AssetInfo | null = null;
  private readonly guard: ReplayGuard;
  private readonly mainnet: MainnetVerifier | null;
  private readonly facilitator: HTTPFacilitatorClient | null;
  private readonly settler: HTTPFacilitatorClient;

  constructor(private readonly deps: AppDeps) {
    this.guard = new ReplayGuard(deps.redis, deps.config.QUEUE_PREFIX);
    this.mainnet = deps.config.ETH_RPC_URL ? new MainnetVerifier(deps.config.ETH_RPC_URL, deps.config.MAINNET_MIN_CONFIRMATIONS) : null;
    this.facilitator =
      deps.config.X402_VERIFY_MODE === 'facilitator'
        ? new HTTPFacilitatorClient({ url: deps.config.X402_FACILITATOR_URL, timeoutMs: deps.config.X402_FACILITATOR_TIMEOUT_MS })
        : null;
    this.settler = this.facilitator ?? new HTTPFacilitatorClient({ url: deps.config.X402_FACILITATOR_URL, timeoutMs: deps.config.X402_FACILITATOR_TIMEOUT_MS });
  }

  get settlementMode(): 'sync' | 'deferred' {
    return this.deps.config.X402_SETTLEMENT_MODE;
  }

  private payTo(): Address {
    const p = this.deps.config.X402_PAY_TO;
    if (!p) throw unavailable('payments_not_configured', 'paid access is not configured on this server (X402_PAY_TO)');
    return getAddress(p);
  }

  requirementsFor(offer: Offer): PaymentRequirements {
    if (!this.asset) {
      try {
        this.asset = resolveAsset(this.deps.config);
      } catch (err) {
        if (err instanceof PaymentConfigError) throw unavailable('payments_not_configured', `paid access is misconfigured: ${err.message}`);
        throw err;
      }
    }
    return paymentRequirements(this.deps.config, this.asset, this.payTo(), offer);
  }

  /** The payment options a client can choose from (the 402 body's details; also documented in OpenAPI). */
  private options(offer: Offer, opts: AuthorizeOptions, req: PaymentRequirements, x402Reason: string | undefined) {
    const pr = paymentRequired(this.deps.config, req, offer, x402Reason);
    return {
      ...pr,
      price: { amount_atomic: offer.amountAtomic.toString(), decimals: 6, display: `${formatUnits6(offer.amountAtomic)} USD` },
      alternatives: {
        ...(opts.apiKeyTiers?.length
          ? { api_key: { header: 'Authorization: Bearer <API key>', tiers: opts.apiKeyTiers, note: 'the builder tier includes the intel report' } }
          : {}),
        mainnet_transfer: this.mainnet
          ? {
              headers: ['X-Payment-Tx', 'X-Payment-From'],
              chain_id: MAINNET_CHAIN_ID,
              tokens: Object.fromEntries(Object.entries(MAINNET_STABLECOINS).map(([a, t]) => [t.symbol, getAddress(a)])),
              pay_to: req.payTo,
              min_amount_atomic: offer.amountAtomic.toString(),
              min_confirmations: this.deps.config.MAINNET_MIN_CONFIRMATIONS,
            }
          : null,
      },
    };
  }

  /**
   * A PaymentRejection as the client gets it: a refusal carries the payment options (details) and a
   * fresh PAYMENT-REQUIRED header (a malformed PAYMENT-SIGNATURE too, so a client can sign again);
   * an unavailable backend passes as it is. The status comes from the registry (src/platform/errors/codes.ts).
   */
  toHttpError(rej: PaymentRejection, offer: Offer, opts: AuthorizeOptions): PaymentRejection {
    // Unavailable passes as it is; one already shaped (e.g. thrown from inside authorize) is not wrapped twice.
    if (rej.rejection === 'unavailable' || shaped.has(rej)) return rej;
    const req = this.requirementsFor(offer);
    const details = { ...this.options(offer, opts, req, rej.x402Reason), problem: rej.details };
    const pr = paymentRequired(this.deps.config, req, offer, rej.x402Reason);
    const out = new PaymentRejection(rej.code, rej.message, rej.x402Reason, details, rej.rejection, { ...paymentRequiredHeaders(pr), ...rej.headers });
    shaped.add(out);
    return out;
  }

  /** Phase 1: decide whether this request is paid for. Throws 402/503 DomainErrors; consumes nothing. */
  async authorize(request: PaymentRequest, offer: Offer, opts: AuthorizeOptions = {}): Promise<Grant> {
    if (request.apiKeyTier && opts.apiKeyTiers?.includes(request.apiKeyTier)) return { kind: 'api_key', tier: request.apiKeyTier };
    try {
      return await this.authorizePayment(request, offer, opts);
    } catch (err) {
      if (err instanceof PaymentRejection) throw this.toHttpError(err, offer, opts);
      throw err;
    }
  }

  private async authorizePayment(request: PaymentRequest, offer: Offer, opts: AuthorizeOptions): Promise<Grant> {
    const req = this.requirementsFor(offer);
    if (request.signature) return this.authorizeX402(request, offer, req);
    if (request.txHash || request.from) return this.authorizeMainnet(request, offer, req);
    if (request.legacyX402) {
      throw reject('payment_requirements_mismatch', 'X-PAYMENT (x402 v1) is not accepted; send the x402 v2 PAYMENT-SIGNATURE header', 'invalid_x402_version');
    }
    const tier = request.apiKeyTier;
    if (tier) {
      throw reject(
        'api_key_tier_insufficient',
        `the ${tier} tier does not include this resource; ${opts.apiKeyTiers?.length ? `the ${opts.apiKeyTiers.join(' and ')} tiers do (builder includes the intel report), or ` : ''}pay per call as described in PAYMENT-REQUIRED`,
        'payment_required',
        { api_key_tier: tier },
      );
    }
    throw reject(
      'payment_required',
      `payment required: ${formatUnits6(offer.amountAtomic)} ${this.asset?.symbol ?? 'USDC'} on ${req.network} (see PAYMENT-REQUIRED), or another option in details.alternatives`,
      'payment_required',
    );
  }

  private async authorizeX402(request: PaymentRequest, offer: Offer, req: PaymentRequirements): Promise<Grant> {
    let v: VerifiedAuthorization;
    let expired: PaymentRejection | null = null;
    try {
      v = await verifyExactPayment(request.signature, req);
    } catch (err) {
      // An authorization that expired since may still be the retry of a recorded payment (below).
      if (!(err instanceof PaymentRejection) || err.code !== 'payment_expired') throw err;
      expired = err;
      v = await verifyExactPayment(request.signature, req, undefined, { window: false });
    }
    const replayKey = x402ReplayKey(req.network, req.asset, v.payer, v.nonce);
    const [seen, prior] = await Promise.all([this.guard.check(replayKey, v.payer), paymentByReplayKey(this.deps.db, replayKey)]);
    // This authorization was recorded before: a retry (deliver what it paid for, once) or a replay.
    if (prior) return this.authorizeRetry(request, offer, req, v, prior);
    if (expired) throw expired;
    if (seen.used) throw reject('payment_replayed', 'this authorization nonce has already paid for a request; sign a new authorization', 'invalid_exact_evm_nonce_already_used');
    if (seen.suspended)
      throw reject('payment_payer_suspended', `a recent payment from ${v.payer} failed to settle; payments from it are refused for now`, 'invalid_exact_evm_insufficient_balance');
    await this.verifyWithFacilitator(v, req);
    const a: X402Authorization = { offer, req, v, replayKey, claimTtlS: Number(v.validBefore) - Date.now() / 1000 + 300, request };
    return {
      kind: 'payment',
      method: 'x402',
      payer: v.payer,
      settled: this.settlementMode === 'sync',
      commit: once((attach) => (this.settlementMode === 'sync' ? this.commitSync(a, attach) : this.commitDeferred(a, attach))),
    };
  }

  /** X402_VERIFY_MODE=facilitator: the facilitator's POST /verify must accept the payment too. */
  private async verifyWithFacilitator(v: VerifiedAuthorization, req: PaymentRequirements): Promise<void> {
    if (!this.facilitator) return;
    let res;
    try {
      res = await this.facilitator.verify(v.paymentPayload, req);
    } catch {
      throw unavailable('payment_verifier_unavailable', 'the payment facilitator could not be reached; the payment was not used, retry');
    }
    if (!res.isValid) {
      throw reject('payment_rejected_by_facilitator', `the facilitator refused the payment: ${res.invalidReason ?? 'invalid'}`, res.invalidReason ?? 'invalid_payment', {
        reason: res.invalidReason ?? null,
      });
    }
  }

  /** Deferred settlement: record the verified payment and enqueue settle-payment. */
  private async commitDeferred(a: X402Authorization, attach?: Attach): Promise<Committed> {
    const paymentId = newPaymentId();
    const articleId = await this.record(a.offer, a.replayKey, a.claimTtlS, x402Row(a, paymentId, 'verified', null), attach);
    await this.enqueueSettlement(paymentId);
    // Not settled yet: success false (the v2 transport's `success` is settlement success), with
    // where to learn the outcome.
    const response = encodePaymentResponseHeader({
      success: false,
      errorReason: 'settlement_pending',
      transaction: '',
      network: a.req.network as `${string}:${string}`,
      payer: a.v.payer,
      extra: { payment_id: paymentId, state: 'verified', settlement: 'deferred', status_url: this.statusUrl(paymentId) },
    });
    return { paymentId, articleId, settlement: null, headers: { 'PAYMENT-RESPONSE': response, ...NO_STORE } };
  }

  /** Sync settlement: claim, settle through the facilitator, then record and deliver. */
  private async commitSync(a: X402Authorization, attach?: Attach): Promise<Committed> {
    const { offer, replayKey, claimTtlS, v } = a;
    const network = a.req.network as `${string}:${string}`;
    const paymentId = newPaymentId();
    if (!(await this.guard.claim(replayKey, claimTtlS))) throw this.replayed(offer, 'x402');
    const outcome = await settleOnce(this.settler, v.paymentPayload, a.req);
    if (outcome.kind === 'refused') {
      // Nothing moved; a refusal for a nonce already used on chain keeps the claim.
      if (!/nonce_already_used/.test(outcome.reason)) await this.guard.release(replayKey).catch(() => undefined);
      // Spent by an earlier request of ours (the Redis claim was lost): a replay, as Postgres says.
      else if (await replayKeyUsed(this.deps.db, replayKey)) throw this.replayed(offer, 'x402');
      throw this.settlementFailed(
        offer,
        network,
        v.payer,
        outcome.reason,
        `the facilitator refused to settle the payment: ${outcome.reason}; nothing was charged and the resource was not delivered`,
      );
    }
    if (outcome.kind === 'transient' && !outcome.indeterminate) {
      await this.guard.release(replayKey).catch(() => undefined);
      throw this.toHttpError(
        unavailable('payment_settlement_unavailable', `the payment facilitator failed (${outcome.reason}); nothing was charged, retry with the same PAYMENT-SIGNATURE`),
        offer,
        {},
      );
    }
    if (outcome.kind === 'transient') {
      // Timed out: the transfer may have been sent. Record it, undelivered, for the settle-payment
      // job, which asks again (a later "nonce already used" then means this transfer went
      // through); the payer's retry with the same PAYMENT-SIGNATURE delivers it once settled.
      await this.record(offer, replayKey, claimTtlS, x402Row(a, paymentId, 'verified', null, false, `${INDETERMINATE}${outcome.reason}`), undefined, true);
      await this.enqueueSettlement(paymentId);
      throw this.pending(paymentId, 'the facilitator did not answer in time; the payment may or may not have been settled');
    }
    const settlement: SettleResponse = { success: true, transaction: outcome.transaction ?? '', network, payer: v.payer };
    let articleId: number | null;
    try {
      articleId = await this.record(offer, replayKey, claimTtlS, x402Row(a, paymentId, 'settled', outcome.transaction), attach, true);
    } catch (err) {
      // Money moved but the record failed: this must reach an operator.
      this.deps.log.error({ paymentId, transaction: outcome.transaction, payer: v.payer, err: (err as Error).message }, 'settled x402 payment could not be recorded');
      throw err;
    }
    return { paymentId, articleId, settlement, headers: this.settledHeaders(settlement, paymentId) };
  }

  private settledHeaders(settlement: SettleResponse, paymentId: string): Record<string, string> {
    const response = encodePaymentResponseHeader({ ...settlement, extra: { payment_id: paymentId, state: 'settled', status_url: this.statusUrl(paymentId) } });
    return { 'PAYMENT-RESPONSE': response, ...NO_STORE };
  }

  /** 503 payment_settlement_pending: recorded, not delivered; the same PAYMENT-SIGNATURE retried delivers it once settled. */
  private pending(paymentId: string, why: string): DomainError {
    return new DomainError(
      'payment_settlement_pending',
      `${why}; the resource was not delivered. Retry with the same PAYMENT-SIGNATURE after Retry-After seconds: once the payment has settled, the retry delivers the resource (once) without paying again; details.status_url shows the payment's state`,
      { payment_id: paymentId, status_url: this.statusUrl(paymentId) },
      { headers: { 'Retry-After': '5' } },
    );
  }

  /** 402 payment_settlement_failed with PAYMENT-RESPONSE success false. */
  private settlementFailed(offer: Offer, network: string, payer: Address, reason: string, message: string): PaymentRejection {
    const failed: SettleResponse = { success: false, errorReason: reason, transaction: '', network: network as `${string}:${string}`, payer };
    const rej = reject('payment_settlement_failed', message, reason, { reason });
    return this.toHttpError(
      new PaymentRejection(rej.code, rej.message, rej.x402Reason, rej.details, 'refused', { 'PAYMENT-RESPONSE': encodePaymentResponseHeader(failed) }),
      offer,
      {},
    );
  }

  /**
   * The same authorization again after it was recorded. Only a payment of this resource that has
   * not delivered it yet (a synchronous settlement that timed out: 503 payment_settlement_pending)
   * is honoured: settled -> the resource is delivered once with a truthful PAYMENT-RESPONSE;
   * still pending -> settled now through the facilitator (503 pending again if it still cannot
   * say); failed for good -> 402 payment_settlement_failed. Anything else is a replay.
   */
  private authorizeRetry(request: PaymentRequest, offer: Offer, req: PaymentRequirements, v: VerifiedAuthorization, prior: PaymentRow): Grant {
    const sameResource =
      prior.method === 'x402' &&
      prior.purpose === offer.purpose &&
      prior.resource === request.resource &&
      prior.amount_atomic === req.amount &&
      prior.pay_to === req.payTo.toLowerCase();
    if (!sameResource || prior.delivered_at)
      throw reject('payment_replayed', 'this authorization nonce has already paid for a request; sign a new authorization', 'invalid_exact_evm_nonce_already_used');
    if (prior.state === 'failed') throw this.retryFailed(offer, prior);
    return {
      kind: 'payment',
      method: 'x402',
      payer: v.payer,
      settled: true,
      commit: once((attach) => this.deliverRetry(offer, prior.id, attach)),
    };
  }

  private retryFailed(offer: Offer, row: PaymentRow): PaymentRejection {
    const reason = row.last_error ?? 'settle_failed';
    return this.settlementFailed(
      offer,
      row.network,
      getAddress(row.payer),
      reason,
      `this payment's settlement failed for good (${reason}); the resource was not delivered; sign a new authorization`,
    );
  }

  private async deliverRetry(offer: Offer, paymentId: string, attach?: Attach): Promise<Committed> {
    const db = this.deps.db;
    let row = await getPayment(db, paymentId);
    // Concurrent retries of one payment: one asks the facilitator, the others answer 503 pending.
    if (row && (row.state === 'verified' || row.state === 'settling') && (await this.guard.lockSettlement(paymentId, this.deps.config.X402_FACILITATOR_TIMEOUT_MS + 5000))) {
      try {
        await this.settleRetry(offer, paymentId);
      } finally {
        await this.guard.unlockSettlement(paymentId).catch(() => undefined);
      }
      row = await getPayment(db, paymentId);
    }
    if (!row) throw this.replayed(offer, 'x402');
    if (row.state === 'failed') throw this.retryFailed(offer, row);
    if (row.state !== 'settled') throw this.pending(paymentId, 'the payment is being settled');
    const delivered = await deliverWithAttachment(db, paymentId, attach);
    // Another retry delivered it first: exactly once per payment.
    if (!delivered) throw this.replayed(offer, 'x402');
    // The transaction hash is unknown ("") only when a timed-out attempt went through and a later
    // one was told "nonce already used" (see settle.ts).
    const settlement: SettleResponse = {
      success: true,
      transaction: row.transaction_hash ?? '',
      network: row.network as `${string}:${string}`,
      payer: getAddress(row.payer),
    };
    return { paymentId, articleId: delivered.articleId, settlement, headers: this.settledHeaders(settlement, paymentId) };
  }

  /** One facilitator attempt for a recorded, pending payment (the payer's retry). Throws 402 / 503 unless it settled. */
  private async settleRetry(offer: Offer, paymentId: string): Promise<void> {
    const db = this.deps.db;
    const taken = await beginSettlement(db, paymentId);
    if (!taken) return; // settled or failed meanwhile (the settle-payment job)
    const { paymentPayload, paymentRequirements } = taken.payload as { paymentPayload: PaymentPayload; paymentRequirements: PaymentRequirements };
    const previous = previousSettleError(taken);
    const outcome = await settleOnce(this.settler, paymentPayload, paymentRequirements, previous);
    if (outcome.kind === 'refused') {
      await markFailed(db, paymentId, outcome.reason);
      throw this.settlementFailed(
        offer,
        taken.network,
        getAddress(taken.payer),
        outcome.reason,
        `the facilitator refused to settle the payment: ${outcome.reason}; the resource was not delivered`,
      );
    }
    if (outcome.kind === 'transient') {
      await recordSettleError(db, paymentId, transientNote(outcome, previous));
      // The settle-payment job keeps trying too (a no-op enqueue while its job is still queued).
      await this.enqueueSettlement(paymentId);
      throw this.pending(paymentId, `the facilitator still cannot settle the payment (${outcome.reason})`);
    }
    // Settled now (or by the job at the same time: markSettled keeps the first transaction hash).
    await markSettled(db, paymentId, outcome.transaction);
  }

  private async enqueueSettlement(paymentId: string): Promise<void> {
    try {
      await this.deps.queue.enqueue('settle-payment', { payment_id: paymentId });
    } catch (err) {
      // Recorded as verified: the scheduled sweep of settle-payment picks it up.
      this.deps.log.warn({ paymentId, err: (err as Error).message }, 'settle-payment enqueue failed; left to the sweep');
    }
  }

  private replayed(offer: Offer, method: 'x402' | 'mainnet_transfer'): PaymentRejection {
    return this.toHttpError(
      reject('payment_replayed', 'this payment has already paid for a request', method === 'x402' ? 'invalid_exact_evm_nonce_already_used' : 'invalid_transaction_already_used'),
      offer,
      {},
    );
  }

  private async authorizeMainnet(request: PaymentRequest, offer: Offer, req: PaymentRequirements): Promise<Grant> {
    const { txHash, from } = parseFallbackHeaders(request.txHash, request.from);
    if (!this.mainnet) throw unavailable('payment_fallback_unavailable', 'the mainnet transfer fallback is not configured on this server (ETH_RPC_URL)');
    const replayKey = mainnetReplayKey(txHash);
    const seen = await this.guard.check(replayKey, from);
    if (seen.used || (await replayKeyUsed(this.deps.db, replayKey))) {
      throw reject('payment_replayed', `transaction ${txHash} has already paid for a request`, 'invalid_transaction_already_used', { tx: txHash });
    }
    const t = await this.mainnet.verify(txHash, from, getAddress(req.payTo), offer.amountAtomic);
    const network = `eip155:${MAINNET_CHAIN_ID}` as const;
    const row = (id: string): NewPayment => ({
      id,
      method: 'mainnet_transfer',
      purpose: offer.purpose,
      replayKey,
      network,
      asset: t.token,
      payer: from,
      payTo: req.payTo,
      amountAtomic: t.amount.toString(),
      state: 'settled',
      validBefore: null,
      payload: { token: t.symbol, block_number: t.blockNumber.toString(), confirmations: t.confirmations.toString() },
      transactionHash: txHash,
      resource: request.resource,
      userId: request.userId,
    });
    const commit = async (attach?: Attach): Promise<Committed> => {
      const paymentId = newPaymentId();
      const articleId = await this.record(offer, replayKey, 30 * 24 * 3600, row(paymentId), attach);
      const settlement: SettleResponse = { success: true, transaction: txHash, network, payer: from };
      return { paymentId, articleId, settlement: null, headers: this.settledHeaders(settlement, paymentId) };
    };
    return { kind: 'payment', method: 'mainnet_transfer', payer: from, settled: true, commit: once(commit) };
  }

  /** Claim in Redis, then insert (and attach) in one Postgres transaction; a conflict is a replay. */
  private async record(offer: Offer, replayKey: string, ttlS: number, row: NewPayment, attach?: Attach, claimed = false): Promise<number | null> {
    const replayed = () => this.replayed(offer, row.method);
    if (!claimed && !(await this.guard.claim(replayKey, ttlS))) throw replayed();
    let outcome: { articleId: number | null } | null;
    try {
      outcome = await insertWithAttachment(this.deps.db, row, attach);
    } catch (err) {
      // A settled payment keeps its claim (the nonce is spent on chain).
      if (row.state !== 'settled' || row.method !== 'x402') await this.guard.release(replayKey).catch(() => undefined);
      throw err;
    }
    // The Redis key stays claimed: Postgres says this payment was used before (Redis had lost it).
    if (!outcome) throw replayed();
    return outcome.articleId;
  }

  statusUrl(paymentId: string): string {
    return new URL(`${API_PREFIX}/payments/${paymentId}/`, this.deps.config.PUBLIC_BASE_URL).toString();
  }
}
