/**
 * The paid tool intel_report over the x402 MCP transport (specs/transports-v2/mcp.md): the payment
 * travels in params._meta["x402/payment"] (a PaymentPayload, checked by the payments feature as the
 * PAYMENT-SIGNATURE of GET /api/v1/intel/report/ would be), the settlement comes back in
 * result._meta["x402/payment-response"], and "payment required", "payment invalid" and "settlement
 * failed" are tool results with isError: true whose structuredContent (and content[0].text, as
 * JSON) is the PaymentRequired. A builder or enterprise API key on the MCP request needs no payment.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { API_PREFIX } from '../platform/http/openapi.js';
import type { Principal } from '../identity/index.js';
import { REPORT_ACCESS, type ReportParams } from '../intel/index.js';
import { compactBazaar, type Offer, type PaymentRequest } from '../payments/index.js';
import { REPORT_TOOL } from './offer.js';
import type { ToolSchemas } from './schemas.js';
import { jsonResult, type ToolCall } from './tool-call.js';
import type { ToolEnv } from './tool-env.js';

/** The payment of a tool call as the payments feature reads a REST request's (PAYMENT-SIGNATURE of the REST route). */
function paymentRequestOf(principal: Principal, payment: PaymentPayload | undefined): PaymentRequest {
  let signature = '';
  if (payment !== undefined) {
    try {
      signature = encodePaymentSignatureHeader(payment);
    } catch {
      signature = '!';
    }
  }
  return {
    signature,
    txHash: '',
    from: '',
    legacyX402: false,
    apiKeyTier: principal.apiKey?.tier ?? null,
    resource: `GET ${API_PREFIX}/intel/report/`,
    userId: principal.user?.id ?? null,
  };
}

/** A header of a payment answer, by name in any case. */
function headerOf(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
}

export function registerReportTool(server: McpServer, env: ToolEnv, call: ToolCall, s: ToolSchemas): void {
  server.registerTool(
    REPORT_TOOL,
    {
      title: 'Market intelligence report (paid)',
      description: `The market intelligence report (GET /api/v1/intel/report/). Paid: ${env.deps.config.X402_PRICE_ATOMIC / 1e6} USD per call over x402 (send a PaymentPayload in params._meta["x402/payment"], x402 MCP transport), or free with a builder/enterprise API key in the Authorization header of the MCP HTTP request. Without either the result is isError with the x402 PaymentRequired (structuredContent) and how to pay.`,
      inputSchema: s.reportQuery,
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { 'x402/payment-required': true },
    },
    async (args, extra) => {
      const payment = extra._meta?.['x402/payment'] as PaymentPayload | undefined;
      try {
        const principal = await call.admit('getIntelReport');
        const request = paymentRequestOf(principal, payment);
        const answer = await env.intel.report(args as unknown as ReportParams, () => env.payments.authorize(request, env.reportOffer, REPORT_ACCESS));
        const pres = answer.committed && headerOf(answer.committed.headers, 'payment-response');
        const out = jsonResult(answer.json);
        return pres ? { ...out, _meta: { 'x402/payment-response': decodePaymentResponseHeader(pres) } } : out;
      } catch (err) {
        const { rendered, result } = call.failure(err);
        const pres = headerOf(rendered.headers, 'payment-response');
        const settlement = pres ? decodePaymentResponseHeader(pres) : undefined;
        const preq = headerOf(rendered.headers, 'payment-required');
        if (preq) return paymentRequiredResult(env.mcpOffer, decodePaymentRequiredHeader(preq), rendered.body.error, settlement);
        return result;
      }
    },
  );
}

/** The x402 MCP transport's "payment required" result: isError, structuredContent = PaymentRequired, content[0].text = its JSON. */
function paymentRequiredResult(offer: Offer, pr: PaymentRequired, err: { code: string; message: string }, settlement: unknown): CallToolResult {
  const mcpPr: PaymentRequired = {
    ...pr,
    resource: { url: offer.resourceUrl!, description: offer.description, mimeType: 'application/json' },
    extensions: { bazaar: compactBazaar(offer.bazaar!) },
  };
  // (compact: a client echoes extensions into its PaymentPayload; the full output schema is in /.well-known/x402)
  const req = pr.accepts[0];
  const howTo = [
    `${err.code}: ${err.message}`,
    `How to pay: sign an x402 v2 "exact" payment (EIP-3009 transferWithAuthorization of ${req?.amount} atomic units of ${req?.asset} to ${req?.payTo} on ${req?.network}) for one of the requirements in "accepts" and call ${REPORT_TOOL} again with the PaymentPayload in params._meta["x402/payment"] (x402 MCP transport).`,
    'Or send Authorization: Bearer <API key> of the builder or enterprise tier on the MCP HTTP request (the builder tier includes the report).',
  ].join('\n');
  return {
    isError: true,
    structuredContent: mcpPr as unknown as Record<string, unknown>,
    content: [
      { type: 'text', text: JSON.stringify(mcpPr) },
      { type: 'text', text: howTo },
    ],
    ...(settlement ? { _meta: { 'x402/payment-response': settlement } } : {}),
  };
}
