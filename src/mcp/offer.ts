/**
 * The paid MCP tool intel_report as an x402 offer: the same price and requirements as
 * GET /api/v1/intel/report/, with the MCP endpoint as the resource and a `bazaar` extension of
 * input.type "mcp" (the x402 MCP transport and the bazaar extension).
 */
import type { AppDeps } from '../platform/deps.js';
import { bazaarMcp, jsonSchemaOf, type BazaarExtension } from '../payments/index.js';
import type { Offer } from '../payments/index.js';
import { reportOffer, reportQuery } from '../intel/index.js';
import { reportSchema } from '../intel/index.js';

export const MCP_PATH = '/mcp';
export const REPORT_TOOL = 'intel_report';

let bazaar: BazaarExtension | undefined;

export function mcpReportOffer(deps: AppDeps): Offer {
  const rest = reportOffer(deps);
  return {
    ...rest,
    resourceUrl: new URL(MCP_PATH, deps.config.PUBLIC_BASE_URL).toString(),
    bazaar: (bazaar ??= bazaarMcp({
      tool: REPORT_TOOL,
      description: rest.description,
      inputSchema: jsonSchemaOf(reportQuery, 'input'),
      output: reportSchema,
      example: { hours: '24', topics: 'defi', top_n: '10' },
    })),
  };
}
