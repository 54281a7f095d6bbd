/** The intel feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { IntelCache, intelJobId } from './cache.js';
export { computeReport, computeTrending, type IntelReport, type TrendingResult } from './compute.js';
export { REPORT_ACCESS, reportOffer, reportQuery } from './offer.js';
export { IntelService } from './service.js';
export { DEFAULT_HOURS, HOURS_RANGE, MAX_TOPIC_LENGTH, MAX_TOPICS, REPORT_TOP_N, type ReportParams, TOPIC_PATTERN, TRENDING_TOP_N, type TrendingParams } from './rules/report.js';
export { reportSchema } from './schemas.js';
