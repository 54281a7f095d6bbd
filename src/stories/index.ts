/** The stories feature's public surface: other features, jobs and the app import only this file. */
export { assignStoryItem } from './service.js';
export { storyRoutes } from './routes.js';
export { storyAssignDedupeId, storyAssignments } from './rules/triggers.js';
