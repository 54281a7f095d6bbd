/** The mcp feature's public surface: other features, jobs and the app import only this file. */
export { discoveryRoutes } from './discovery-routes.js';
export { mcpEndpoint } from './server.js';
