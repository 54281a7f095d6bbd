/** The profile feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { toDrop } from './drops.js';
export { dropSchema } from './schemas.js';
