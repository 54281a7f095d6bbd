/** The wire feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { dueSources, promoteWireItemIn } from './queries.js';
export { COVERED_STATUSES } from './rules/promotion.js';
export { fetchWireSource, scoreAndPromoteWireItems } from './service.js';
