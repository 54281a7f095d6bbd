/** The rewards feature's public surface: other features, jobs and the app import only this file. */
export { EARNINGS_CACHE_TTL_S, earningsEstimate } from './earnings.js';
export { leaderboardRoutes } from './leaderboard-routes.js';
export { recentDropsOf } from './queries.js';
export { distributeMonth, monthsToCompute, runLeaderboards } from './service.js';
export { rewardRoutes } from './routes.js';
export { addMonths, formatTokens, MONTH_PATTERN, monthOf } from './rules/rewards.js';
