/** The feed feature's public surface: other features, jobs and the app import only this file. */
export { invalidateFeedCache } from './cache.js';
export { feedRoutes } from './routes.js';
export { articlePageBody, type ListQuery } from './service.js';
