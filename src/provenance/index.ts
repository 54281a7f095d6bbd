/** The provenance feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { articlesByUrl, checkProvenance, headlineCandidates } from './queries.js';
export { checkAnswer, maintainHeadlineIndex, pollCheck, runCheck, searchArticles, startCheck } from './service.js';
export { type ProvenanceCheckResult } from './rules/check.js';
export { HEADLINE_MATCH_THRESHOLD, headlineSimilarity } from './rules/headline-similarity.js';
export { MAX_CHECK_TEXT_LENGTH, MAX_CHECK_URL_LENGTH, provenanceSettings } from './rules/settings.js';
export { LOOKBACK_MS } from './rules/verdict.js';
