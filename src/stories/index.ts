/** The stories feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { assignStoryItem, backfillStories } from './service.js';
export { parseReplayLines, replayStories } from './rules/replay.js';
export { storyAssignDedupeId, storyAssignments } from './rules/triggers.js';
export { readStory, readStoryPage } from './service.js';
export { storyListFilter, type StoryListQuery } from './list-query.js';
export { assignStoryItemBatched } from './assign-batcher.js';
export { reindexStories } from './reindex-service.js';
