/** The credibility feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { ensureMonthRecomputed, recomputeMonth } from './service.js';
export { ensureDecisionsApplied } from './overrides-service.js';
export { listFlags, type StaffFlag } from './flags-view.js';
export { updateVoteCredibility } from './vote-queries.js';
export { voteUpdateDedupeId, voteUpdates } from './rules/vote-triggers.js';
