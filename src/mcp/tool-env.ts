/** What the tools call, built once per app: the features' services, the report's offers, and the REST checks. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../platform/deps.js';
import type { RouteDef } from '../platform/http/route.js';
import { IntelService, reportOffer } from '../intel/index.js';
import { PaymentService, type Offer } from '../payments/index.js';
import { mcpReportOffer } from './offer.js';
import { toolGuards, type ToolCall, type ToolGuards } from './tool-call.js';

export interface ToolEnv {
  deps: AppDeps;
  guards: ToolGuards;
  intel: IntelService;
  payments: PaymentService;
  /** GET /api/v1/intel/report/'s offer: what a payment is checked against, as on REST. */
  reportOffer: Offer;
  /** The same offer with the MCP endpoint as its resource: what a "payment required" result shows. */
  mcpOffer: Offer;
  /** The tool's result, or the REST error body of what it threw as an isError result. */
  run(call: ToolCall, fn: () => Promise<CallToolResult>): Promise<CallToolResult>;
}

export function toolEnv(deps: AppDeps, routes: RouteDef[]): ToolEnv {
  return {
    deps,
    guards: toolGuards(deps, routes),
    intel: new IntelService(deps),
    payments: new PaymentService(deps),
    reportOffer: reportOffer(deps),
    mcpOffer: mcpReportOffer(deps),
    async run(call, fn) {
      try {
        return await fn();
      } catch (err) {
        return call.failure(err).result;
      }
    },
  };
}
