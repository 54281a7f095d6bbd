/** The sponsored feature's public surface: other features, jobs and the app import only this file. */
export { failAdPayment, markAdPaid } from './queries.js';
export { sponsoredOffer, sponsoredRoutes } from './routes.js';
