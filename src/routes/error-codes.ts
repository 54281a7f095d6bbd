/**
 * Every error code the API can answer with, by area, with its meaning: the OpenAPI document's
 * description and README's error table are generated from this list.
 */
import { uploadErrorCodes } from '../media/profile-upload.js';
import { paymentErrorCodes } from '../payments/errors.js';
import { httpErrorCodes } from '../errors.js';
import { agentChatErrorCodes } from './agent-chat.js';
import { eventErrorCodes } from './events.js';
import { intelErrorCodes } from './intel.js';
import { newsErrorCodes } from './news-common.js';
import { profileErrorCodes } from './profile.js';
import { provenanceErrorCodes } from './provenance.js';
import { rewardErrorCodes } from './rewards.js';
import { sponsoredErrorCodes } from './sponsored.js';
import { authErrors } from './wallet-auth.js';
import { webhookErrorCodes } from './webhooks.js';
import { wireErrorCodes } from './wire.js';

export const identityErrorCodes = {
  ...authErrors,
  auth_required: '401: the route needs credentials (access_token cookie or Authorization: Bearer).',
  authorization_malformed: '401: the Authorization header is not "Bearer <token>".',
  token_expired: '401: the access token has expired; refresh or sign in again.',
  token_invalid: '401: the token is tampered, signed with another key or algorithm, or not an access token.',
  account_not_found: '401: the account of a valid token no longer exists.',
  api_key_invalid: '401: no such API key.',
  api_key_revoked: '401: the API key was revoked.',
  api_key_required: '401: the endpoint is authenticated by an API key (Authorization: Bearer squid_...).',
  account_required: '403: the API key is not linked to an account, and the route acts for an account.',
  editor_required: '403: the route needs the editor role (read from the database).',
  staff_required: '403: the route needs the staff role (read from the database).',
  csrf_origin_mismatch: '403: a cookie-authenticated write without Origin (or Referer) equal to TRUSTED_ORIGIN.',
  refresh_token_missing: '401: no refresh token in the cookie or the body.',
  refresh_token_invalid: '401: the refresh token is malformed, forged or not a refresh token.',
  refresh_token_expired: '401: the refresh token has expired; sign in again.',
  refresh_token_reused: '401: a spent refresh token was presented again; its whole family is revoked.',
  refresh_token_revoked: '401: the refresh token belongs to a revoked family (logout or reuse).',
  daily_quota_exceeded: '429: the caller used its daily quota (API-key tier, session or anonymous IP); Retry-After until 00:00 UTC.',
  rate_limited: "429: the route's per-IP limit was exceeded; Retry-After says when to retry.",
  session_required: '403: the queue dashboard needs a signed-in staff session, not an API key.',
  metrics_token_invalid: '401: GET /metrics (web and stream processes) when METRICS_TOKEN is set and the Bearer token is missing or wrong.',
  sponsored_review_required: '409: sponsored posts are reviewed through /api/v1/sponsored/<id>/approve, not the generic editorial approve.',
} as const;

export const errorCodesByArea: Record<string, Record<string, string>> = {
  'HTTP conventions': httpErrorCodes,
  'Identity and access': identityErrorCodes,
  Articles: newsErrorCodes,
  Events: eventErrorCodes,
  Profiles: { ...profileErrorCodes, ...uploadErrorCodes },
  Rewards: rewardErrorCodes,
  Provenance: provenanceErrorCodes,
  Wire: wireErrorCodes,
  'Agent chat': {
    ...agentChatErrorCodes,
    webhook_secret_invalid: '401: POST /telegram/webhook without the X-Telegram-Bot-Api-Secret-Token header Telegram was given, or with a wrong one.',
  },
  Streams: {
    upgrade_required: '426: a plain HTTP request to the stream URL /ws/news/; connect with WebSocket there or with EventSource to /sse/news/.',
  },
  Intel: intelErrorCodes,
  Payments: paymentErrorCodes,
  Sponsored: sponsoredErrorCodes,
  Webhooks: webhookErrorCodes,
};

export const allErrorCodes: Record<string, string> = Object.assign({}, ...Object.values(errorCodesByArea));
