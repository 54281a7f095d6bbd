/** The editor feature's public surface: other features, jobs and the app import only this file. */
export { editorCsp, editorRoutes } from './console-routes.js';
export { editorialRoutes } from './editorial-routes.js';
export { modlogRoutes } from './modlog-routes.js';
export { publishDueArticles, publishIfDue } from './service.js';
export { storyReviewRoutes } from './story-review-routes.js';
