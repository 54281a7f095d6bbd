/** The wire feature's public surface: other features, jobs and the app import only this file. */
export { dueSources, promoteWireItemIn } from './queries.js';
export { wireRoutes } from './routes.js';
export { COVERED_STATUSES } from './rules/promotion.js';
export { fetchWireSource, scoreAndPromoteWireItems } from './service.js';
