/** The report's x402 offer and its query schema, shared by the route, the MCP tool and discovery. */
import { z } from 'zod';
import type { AppDeps } from '../platform/deps.js';
import { queryInt } from '../platform/http/route.js';
import { bazaarHttp, type AuthorizeOptions, type BazaarExtension, type Offer } from '../payments/index.js';
import { DEFAULT_HOURS, HOURS_RANGE, parseTopics, REPORT_TOP_N } from './rules/report.js';
import { reportSchema } from './schemas.js';

const topicsParam = z
  .string()
  .max(1000)
  .optional()
  .transform((v, ctx) => {
    const r = parseTopics(v);
    if ('error' in r) {
      ctx.addIssue({ code: 'custom', message: r.error });
      return z.NEVER;
    }
    return r.topics;
  })
  .meta({
    description:
      'Comma-separated tag slugs (at most 20), e.g. `defi,layer-2`: trending_topics and content_performance cover only articles carrying one of them. Default: all tags.',
  });

export const reportQuery = z.object({
  hours: queryInt({ min: HOURS_RANGE.min, max: HOURS_RANGE.max, default: DEFAULT_HOURS }).meta({ description: 'Window in hours, 1-168 (default 24)' }),
  topics: topicsParam,
  top_n: queryInt({ min: REPORT_TOP_N.min, max: REPORT_TOP_N.max, default: REPORT_TOP_N.default }).meta({ description: 'Entries per list, 1-50 (default 10)' }),
});

let reportBazaar: BazaarExtension | undefined;

/** Who gets the report without paying per call: API keys of these tiers. */
export const REPORT_ACCESS: AuthorizeOptions = { apiKeyTiers: ['builder', 'enterprise'] };

export function reportOffer(deps: AppDeps): Offer {
  return {
    purpose: 'intel_report',
    amountAtomic: BigInt(deps.config.X402_PRICE_ATOMIC),
    path: '/api/v1/intel/report/',
    description: 'Squid News market intelligence report (one call): trending topics, top sources, content performance and sentiment over the last `hours` hours',
    method: 'GET',
    bazaar: (reportBazaar ??= bazaarHttp({ method: 'GET', query: reportQuery, output: reportSchema, exampleQuery: { hours: '24', topics: 'defi', top_n: '10' } })),
  };
}
