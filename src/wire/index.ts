/** The wire feature's public surface: other features, jobs and the app import only this file. */
export {
  claimUnscored,
  dueSources,
  findSource,
  type IncomingItem,
  ingestItems,
  promoteWireItem,
  promotionCandidates,
  recordFetchFailure,
  recordFetchNotModified,
  recordFetchSuccess,
  setScore,
} from './queries.js';
export { wireRoutes } from './routes.js';
export { FeedParseError, parseFeed } from './rules/feed-parse.js';
