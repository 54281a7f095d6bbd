/** The sponsored feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { sponsoredOffer } from './offer.js';
export { settlePayment } from './service.js';
