/** The stream feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { WsMetrics } from './metrics.js';
export { broadcasterOptionsFromConfig, createBroadcaster } from './server.js';
