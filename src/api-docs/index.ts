/** The api-docs feature's public surface: other features, jobs and the app import only this file. */
export { metaRoutes } from './openapi-routes.js';
export { docsCsp, docsRoutes } from './routes.js';
