/** The agent-chat feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { applyTrustInRoom, expireHandshake, moderateMessage, permanentIfRejected, reviewTrust, sendRoomMessage } from './service.js';
