/** The stream feature's public surface: other features, jobs and the app import only this file. */
export { eventRoutes } from './events-routes.js';
export { WsMetrics } from './metrics.js';
export { broadcasterOptionsFromConfig, createBroadcaster } from './server.js';
