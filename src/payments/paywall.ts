/**
 * Paid access for Koa routes: the HTTP adapter around PaymentService (src/payments/service.ts).
 * It reads the payment headers (PAYMENT-SIGNATURE, X-Payment-Tx + X-Payment-From, X-PAYMENT) and the
 * caller from the request, and writes the headers a commit returns (PAYMENT-RESPONSE) on the response:
 *
 *   const grant = await paywall.authorize(ctx, offer)   // 402/503 on any problem; nothing consumed
 *   ...compute the response...
 *   await grant.commit()                                 // consume, record, set PAYMENT-RESPONSE
 */
import type { PaymentRequirements } from '@x402/core/types';
import type { Context } from 'koa';
import type { AppDeps } from '../platform/deps.js';
import type { PaymentRejection } from './errors.js';
import type { Offer } from './requirements.js';
import { PaymentService, type AuthorizeOptions, type Grant, type PaymentRequest } from './service.js';

/** The payment headers and the caller of a Koa request. */
function paymentRequestOf(ctx: Context): PaymentRequest {
  return {
    signature: ctx.get('payment-signature'),
    txHash: ctx.get('x-payment-tx'),
    from: ctx.get('x-payment-from'),
    legacyX402: Boolean(ctx.get('x-payment')),
    apiKeyTier: ctx.state.apiKey?.tier ?? null,
    resource: `${ctx.method} ${ctx.path}`,
    userId: ctx.state.user?.id ?? null,
  };
}

export class Paywall {
  readonly service: PaymentService;

  constructor(deps: AppDeps) {
    this.service = new PaymentService(deps);
  }

  get settlementMode(): 'sync' | 'deferred' {
    return this.service.settlementMode;
  }

  requirementsFor(offer: Offer): PaymentRequirements {
    return this.service.requirementsFor(offer);
  }

  toHttpError(rej: PaymentRejection, offer: Offer, opts: AuthorizeOptions): PaymentRejection {
    return this.service.toHttpError(rej, offer, opts);
  }

  /** Phase 1: decide whether this request is paid for. Throws 402/503 DomainErrors; consumes nothing. */
  async authorize(ctx: Context, offer: Offer, opts: AuthorizeOptions = {}): Promise<Grant> {
    const grant = await this.service.authorize(paymentRequestOf(ctx), offer, opts);
    if (grant.kind !== 'payment') return grant;
    return {
      ...grant,
      async commit(attach) {
        const out = await grant.commit(attach);
        for (const [name, value] of Object.entries(out.headers)) ctx.set(name, value);
        return out;
      },
    };
  }

  statusUrl(paymentId: string): string {
    return this.service.statusUrl(paymentId);
  }
}
