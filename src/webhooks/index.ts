/** The webhooks feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { deliverEndpoint, wakeEndpoint } from './deliver.js';
export { fanOutWebhooks } from './fanout.js';
export { dueEndpoints, pruneDeliveries } from './queries.js';
export { webhookKeyWarning } from './secrets.js';
