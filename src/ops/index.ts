/** The ops feature's public surface: other features, jobs and the app import only this file. */
export { adminQueues, adminQueuesCsp } from './admin-queues.js';
export { healthRoutes } from './health-routes.js';
export { prunePayments, pruneTelegramUpdates, pruneWireItems, pruneWireTombstones } from './retention-queries.js';
