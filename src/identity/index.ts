/** The identity feature's public surface for other features and jobs; its HTTP routes are mounted by src/routes.ts, which imports the routes modules itself. */
export { pruneUnusedKeys } from './api-key-queries.js';
export { type Tier } from './api-keys.js';
export { authenticate, authenticateFromCache, authLevelCheck, authorizationAuthenticator, csrfGuard, type Principal, requireAuth } from './auth-middleware.js';
export { looksLikeAddress, USERNAME_PATTERN, usernameProblem } from './rules/username.js';
export { accessTokenFromCookieHeader, verifyAccessToken } from './tokens.js';
export { getUserByAddress, getUserById, toProfile, userRoles, type UserRow } from './users-queries.js';
