/** The articles feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { recomputeHotScores } from './hot-score-queries.js';
export { recomputeAndRecord } from './hot-score-service.js';
export { toArticleItem, toArticleRecord, toDecision } from './mappers.js';
export {
  articleExists,
  type ArticleItemRow,
  claimPageTitleSweep,
  dueScheduledIds,
  type FeedFilter,
  feedItemsByIds,
  feedMatches,
  feedPage,
  feedPageWithCount,
  type FeedQuery,
  type FeedSort,
  type FeedStatus,
  getArticleForEvent,
  getArticleRecord,
  insertArticleEdit,
  listEdits,
  lockForEdit,
  lockForReview,
  type PageTitleRow,
  pageTitleUpdate,
  type PageTitleUpdate,
  publishScheduledRow,
  recordPageTitleFailure,
  stillScheduled,
  writeEdit,
  writeReview,
} from './queries.js';
export { collapsedFeedPage, type CollapsedItemRow } from './collapsed-feed-queries.js';
export { tokenSymbolsMatch } from './queries.js';
export { articleNotFound, isSignedIn, pageLinks, requireSignedIn, type CallerCtx, type PageRequest } from './route-helpers.js';
export { articleRecord, yapPage } from './reads.js';
export { submissionBody, submitArticle } from './service.js';
export { type Changes, diffEdit, type EditableFields, editColumns } from './rules/article-edit.js';
export { articleEvent, type ArticleEventSource, tsunamiEvent } from './rules/article-event.js';
export { debouncedHotScoreJob } from './rules/hot-score.js';
export {
  DECISION_REASON_LABELS,
  type DecisionReason,
  DECISION_REASONS,
  DEFAULT_DECISION_REASON,
  MAX_DECISION_NOTE,
  MODLOG_ACTIONS,
  type ModlogAction,
  type StoredDecisionReason,
} from './rules/moderation.js';
export { extractPage, type PageMeta } from './rules/page-title.js';
export { canTransition, type EditorialAction, TRANSITIONS } from './rules/state.js';
export { MAX_YAP_TAG_LENGTH, YAP_TAG_PATTERN } from './rules/yap.js';
export {
  articlePageSchema,
  articleTags,
  decisionSchema,
  DEFAULT_PER_PAGE,
  editHistorySchema,
  editorialResult,
  feedFilterParams,
  headlineInput,
  idParam,
  MAX_FILTER_VALUES,
  MAX_PAGE,
  MAX_PER_PAGE,
  tokenAddress,
  topWindowParam,
} from './schemas.js';
export { applyPageTitle, type PageTitleWrite } from './service.js';
export { myVotesOn } from './vote-queries.js';
