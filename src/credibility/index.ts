/** The credibility feature's public surface: jobs, the rewards feature and the app import only this file. */
export { ensureMonthRecomputed, recomputeMonth } from './service.js';
export { ensureDecisionsApplied } from './overrides-service.js';
export { credibilityStaffRoutes } from './routes.js';
export { listFlags, type StaffFlag } from './flags-view.js';
export { updateVoteCredibility } from './vote-queries.js';
export { voteUpdateDedupeId, voteUpdates } from './rules/vote-triggers.js';
