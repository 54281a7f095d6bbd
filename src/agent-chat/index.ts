/** The agent-chat feature's public surface: other features, jobs and the app import only this file. */
export { agentChatRoutes } from './routes.js';
export { AgentChatJobRejected, applyTrustInRoom, expireHandshake, moderateMessage, reviewTrust, sendRoomMessage } from './service.js';
export { telegramWebhookRoutes } from './telegram-routes.js';
