/** The profile feature's public surface: other features, jobs and the app import only this file. */
export { dropSchema, profileRoutes, toDrop } from './routes.js';
