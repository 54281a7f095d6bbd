/** The webhooks feature's public surface: other features, jobs and the app import only this file. */
export { deliverEndpoint, wakeEndpoint } from './deliver.js';
export { fanOutWebhooks } from './fanout.js';
export { dueEndpoints, pruneDeliveries } from './queries.js';
export { webhookRoutes } from './routes.js';
export { webhookKeyWarning } from './secrets.js';
