/** The identity feature's public surface: other features, jobs and the app import only this file. */
export { pruneUnusedKeys } from './api-key-queries.js';
export { apiKeyRoutes } from './api-key-routes.js';
export { type Tier } from './api-keys.js';
export { authenticate, authenticateFromCache, authLevelCheck, authorizationAuthenticator, csrfGuard, type Principal, requireAuth } from './auth-middleware.js';
export { looksLikeAddress, USERNAME_PATTERN, usernameProblem } from './rules/username.js';
export { accessTokenFromCookieHeader, verifyAccessToken } from './tokens.js';
export { getUserByAddress, getUserById, toProfile, userRoles, type UserRow } from './users-queries.js';
export { walletAuthRoutes } from './wallet-routes.js';
