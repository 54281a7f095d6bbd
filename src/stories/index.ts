/** The stories feature's public surface: other features, jobs and the app import only this file. */
export { assignStoryItem, backfillStories } from './service.js';
export { parseReplayLines, replayStories } from './rules/replay.js';
export { storyRoutes } from './routes.js';
export { storyAssignDedupeId, storyAssignments } from './rules/triggers.js';
export { storyEditorRoutes } from './editor-routes.js';
export { readStory, readStoryPage } from './service.js';
export { storyListFilter, type StoryListQuery } from './list-query.js';
export { assignStoryItemBatched } from './assign-batcher.js';
export { reindexStories } from './reindex-service.js';
