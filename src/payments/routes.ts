/**
 * GET /payments/:payment_id/ — the state of one payment (the status_url of PAYMENT-RESPONSE). The id
 * is 128 random bits and is only ever given to the payer, so it is the credential for this read.
 */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { DomainError } from '../platform/errors/index.js';
import { errorSchema } from '../platform/http/openapi.js';
import { defineRoute, type RouteDef } from '../platform/http/route.js';
import { getPayment } from './queries.js';

const paymentSchema = z
  .object({
    id: z.string(),
    method: z.enum(['x402', 'mainnet_transfer']).meta({ description: 'x402 (PAYMENT-SIGNATURE) or a mainnet stablecoin transfer (X-Payment-Tx)' }),
    purpose: z.enum(['intel_report', 'sponsored_post']),
    state: z.enum(['verified', 'settling', 'settled', 'failed']).meta({
      description:
        'verified: signature checked, settlement queued (deferred mode: the resource was served; sync mode after 503 payment_settlement_pending: not delivered, see delivered_at); settling: the facilitator is being asked (attempts counts them); settled: on chain (transaction); failed: the facilitator refused or every attempt failed (error)',
    }),
    network: z.string().meta({ description: 'CAIP-2 network, e.g. eip155:8453 (x402) or eip155:1 (mainnet transfer)' }),
    asset: z.string().meta({ description: 'Token contract (lower-case)' }),
    amount_atomic: z.string().meta({ description: 'Amount in atomic units (6 decimals)' }),
    payer: z.string(),
    pay_to: z.string(),
    transaction: z.string().nullable().meta({ description: 'Settlement (or fallback) transaction hash; null until settled, or when the facilitator did not report it' }),
    attempts: z.number().int().meta({ description: 'Settlement attempts so far' }),
    error: z.string().nullable().meta({ description: 'Last settlement error' }),
    article_id: z.number().int().nullable().meta({ description: 'The sponsored post this paid for' }),
    created_at: z.string().meta({ format: 'date-time' }),
    settled_at: z.string().nullable().meta({ format: 'date-time' }),
    delivered_at: z.string().nullable().meta({
      format: 'date-time',
      description:
        'When the paid resource was delivered. null after 503 payment_settlement_pending: the payment is recorded but nothing was delivered; retry the request with the same PAYMENT-SIGNATURE to get it (once) when it has settled',
    }),
  })
  .meta({ id: 'Payment' });

export function paymentRoutes(deps: AppDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/payments/:payment_id/',
      operationId: 'getPayment',
      summary: 'State of a payment (from PAYMENT-RESPONSE extra.status_url)',
      tags: ['intel'],
      params: z.object({ payment_id: z.string().regex(/^pay_[A-Za-z0-9_-]{22}$/, 'not a payment id') }),
      responses: { 200: { description: 'the payment', schema: paymentSchema }, 404: { description: 'payment_not_found', schema: errorSchema } },
      async handler(ctx, { params }) {
        const p = await getPayment(deps.db, params.payment_id);
        if (!p) throw new DomainError('payment_not_found', `no payment ${params.payment_id}`);
        ctx.set('Cache-Control', 'private, no-store');
        ctx.body = {
          id: p.id,
          method: p.method,
          purpose: p.purpose,
          state: p.state,
          network: p.network,
          asset: p.asset,
          amount_atomic: p.amount_atomic,
          payer: p.payer,
          pay_to: p.pay_to,
          transaction: p.transaction_hash,
          attempts: p.settle_attempts,
          error: p.state === 'failed' || p.state === 'settling' ? p.last_error : null,
          article_id: p.article_id,
          created_at: p.created_at.toISOString(),
          settled_at: p.settled_at ? p.settled_at.toISOString() : null,
          delivered_at: p.delivered_at ? p.delivered_at.toISOString() : null,
        };
      },
    }),
  ];
}
