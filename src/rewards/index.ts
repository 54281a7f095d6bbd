/** The rewards feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { EARNINGS_CACHE_TTL_S, earningsEstimate } from './earnings.js';
export { recentDropsOf } from './queries.js';
export { distributeMonth, monthsToCompute, runLeaderboards } from './service.js';
export { addMonths, formatTokens, MONTH_PATTERN, monthOf } from './rules/rewards.js';
