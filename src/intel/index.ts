/** The intel feature's public surface: other features, jobs and the app import only this file. */
export { IntelCache, intelJobId } from './cache.js';
export { computeReport, computeTrending, type IntelReport, type TrendingResult } from './compute.js';
export { intelRoutes, REPORT_ACCESS, reportOffer, reportQuery } from './routes.js';
export { IntelService } from './service.js';
export { DEFAULT_HOURS, HOURS_RANGE, MAX_TOPIC_LENGTH, MAX_TOPICS, REPORT_TOP_N, type ReportParams, TOPIC_PATTERN, TRENDING_TOP_N, type TrendingParams } from './rules/report.js';
export { reportSchema } from './schemas.js';
