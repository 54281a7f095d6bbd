/** The relay feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { relayUntilEmpty } from './relay.js';
export { RelayWaker } from './waker.js';
