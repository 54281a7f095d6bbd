/** The relay feature's public surface: other features, jobs and the app import only this file. */
export { relayUntilEmpty } from './relay.js';
export { RelayWaker } from './waker.js';
