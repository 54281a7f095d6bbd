/** The agent-chat feature's public surface: other features, jobs and the app import only this file. */
export { agentChatRoutes } from './routes.js';
export { applyTrustInRoom, expireHandshake, moderateMessage, permanentIfRejected, reviewTrust, sendRoomMessage } from './service.js';
export { telegramWebhookRoutes } from './telegram-routes.js';
