/** The agent-chat feature's public surface: other features, jobs and the app import only this file. */
export { agentByTelegramUser, countRecentMessages, getMessage } from './queries.js';
export { agentChatRoutes } from './routes.js';
export { POSTING_RULES, postingLimit, telegramPermissions, type TrustLevel } from './rules/trust.js';
export { botApiFromConfig, TelegramError } from './telegram-bot-api.js';
export { telegramWebhookRoutes } from './telegram-routes.js';
export {
  expireChallenge,
  expireOverdueChallenges,
  getAgentAccount,
  hasPostingRateViolationSince,
  recordViolation,
  reviewSandboxed,
  type ViolationOutcome,
} from './trust-queries.js';
