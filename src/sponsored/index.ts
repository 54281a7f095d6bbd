/** The sponsored feature's public surface: other features, jobs and the app import only this file. */
export { sponsoredOffer, sponsoredRoutes } from './routes.js';
export { settlePayment } from './service.js';
