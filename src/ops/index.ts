/** The ops feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { adminQueues, adminQueuesCsp } from './admin-queues.js';
export { prunePayments, pruneTelegramUpdates, pruneWireItems, pruneWireTombstones } from './retention-queries.js';
