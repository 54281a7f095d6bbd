/**
 * The one registry of error codes. Each code the API can answer with is listed once, with the HTTP
 * status the error middleware (src/platform/errors/index.ts) gives it, the area it belongs to and its meaning.
 * README's error table (`npm run docs:config`) and the OpenAPI document's description are generated
 * from this list; `DomainError` only accepts a code listed here, so `tsc` refuses an unlisted code.
 *
 * The descriptions are the README wording; a leading "NNN:" or a trailing "(NNN)" in a description
 * must agree with `status` (test/unit/error-codes.test.ts).
 */

/** README's grouping of the table, in this order. */
export const ERROR_AREAS = [
  'HTTP conventions',
  'Identity and access',
  'Articles',
  'Events',
  'Profiles',
  'Rewards',
  'Provenance',
  'Wire',
  'Agent chat',
  'Streams',
  'Intel',
  'Payments',
  'Sponsored',
  'Webhooks',
  'Stories',
  'Assets',
] as const;

type ErrorArea = (typeof ERROR_AREAS)[number];

interface ErrorCodeSpec {
  area: ErrorArea;
  /** The HTTP status of this code. */
  status: number;
  description: string;
  /**
   * Where a protocol gives one code two statuses: the status for an error that carries this
   * `kind` (payment_invalid_encoding: 400 for a malformed PAYMENT-SIGNATURE, as the x402 v2 HTTP
   * transport specifies, 402 for a malformed X-Payment-Tx / X-Payment-From).
   */
  statusByKind?: Record<string, number>;
}

export const errorCodes = {
  validation_failed: { area: 'HTTP conventions', status: 400, description: 'A parameter or body field is missing, of the wrong type or out of range (details lists each field).' },
  malformed_json: { area: 'HTTP conventions', status: 400, description: 'The request body is not valid JSON.' },
  unsupported_media_type: {
    area: 'HTTP conventions',
    status: 415,
    description: 'The body has a content type this endpoint does not accept (the profile update takes application/json or multipart/form-data).',
  },
  payload_too_large: { area: 'HTTP conventions', status: 413, description: 'The request body exceeds the size limit.' },
  bad_content_encoding: { area: 'HTTP conventions', status: 400, description: 'The body is not valid for its Content-Encoding (gzip, deflate or br that does not decompress).' },
  not_found: { area: 'HTTP conventions', status: 404, description: 'No route matches the path.' },
  bad_request: { area: 'HTTP conventions', status: 400, description: 'A malformed request refused by the HTTP layer before any route ran (the generic code of a bare 400).' },
  unauthorized: { area: 'HTTP conventions', status: 401, description: 'The generic code of a bare 401 from the HTTP layer.' },
  forbidden: { area: 'HTTP conventions', status: 403, description: 'The generic code of a bare 403 from the HTTP layer.' },
  method_not_allowed: { area: 'HTTP conventions', status: 405, description: 'The route exists but not with this method (see the Allow header).' },
  not_implemented: { area: 'HTTP conventions', status: 501, description: 'The HTTP method is not supported by this server.' },
  invalid_value: { area: 'HTTP conventions', status: 400, description: 'A value was refused by the database (e.g. a NUL byte in text, a number out of range).' },
  service_unavailable: { area: 'HTTP conventions', status: 503, description: 'A backing service (PostgreSQL or Redis) is unreachable; retry later.' },
  internal_error: { area: 'HTTP conventions', status: 500, description: 'An unexpected failure; quote the request id when reporting it.' },
  nonce_unknown: { area: 'Identity and access', status: 401, description: 'The nonce was never issued (or is long gone): request a new one.' },
  nonce_expired: { area: 'Identity and access', status: 401, description: 'The nonce is older than one hour: request a new one.' },
  nonce_used: { area: 'Identity and access', status: 401, description: 'The nonce was already used to sign in: request a new one.' },
  nonce_address_mismatch: { area: 'Identity and access', status: 401, description: 'The nonce was issued for another address.' },
  signature_over_nonce: { area: 'Identity and access', status: 401, description: 'The signature is over the bare nonce; sign the full message text.' },
  signature_invalid: { area: 'Identity and access', status: 401, description: 'The signature does not match the message and address (another key, or another message).' },
  auth_required: {
    area: 'Identity and access',
    status: 401,
    description:
      '401: the route needs credentials (access_token cookie or Authorization: Bearer); among articles, the listing with status=submitted or all and every action need them.',
  },
  authorization_malformed: { area: 'Identity and access', status: 401, description: '401: the Authorization header is not "Bearer <token>".' },
  token_expired: { area: 'Identity and access', status: 401, description: '401: the access token has expired; refresh or sign in again.' },
  token_invalid: { area: 'Identity and access', status: 401, description: '401: the token is tampered, signed with another key or algorithm, or not an access token.' },
  account_not_found: { area: 'Identity and access', status: 401, description: '401: the account of a valid token no longer exists.' },
  api_key_invalid: { area: 'Identity and access', status: 401, description: '401: no such API key.' },
  api_key_revoked: { area: 'Identity and access', status: 401, description: '401: the API key was revoked.' },
  api_key_required: { area: 'Identity and access', status: 401, description: '401: the endpoint is authenticated by an API key (Authorization: Bearer squid_...).' },
  account_required: { area: 'Identity and access', status: 403, description: '403: the API key is not linked to an account, and the route acts for an account.' },
  editor_required: { area: 'Identity and access', status: 403, description: '403: the route needs the editor role (read from the database).' },
  staff_required: { area: 'Identity and access', status: 403, description: '403: the route needs the staff role (read from the database).' },
  csrf_origin_mismatch: { area: 'Identity and access', status: 403, description: '403: a cookie-authenticated write without Origin (or Referer) equal to TRUSTED_ORIGIN.' },
  refresh_token_missing: { area: 'Identity and access', status: 401, description: '401: no refresh token in the cookie or the body.' },
  refresh_token_invalid: { area: 'Identity and access', status: 401, description: '401: the refresh token is malformed, forged or not a refresh token.' },
  refresh_token_expired: { area: 'Identity and access', status: 401, description: '401: the refresh token has expired; sign in again.' },
  refresh_token_reused: { area: 'Identity and access', status: 401, description: '401: a spent refresh token was presented again; its whole family is revoked.' },
  refresh_token_revoked: { area: 'Identity and access', status: 401, description: '401: the refresh token belongs to a revoked family (logout or reuse).' },
  daily_quota_exceeded: {
    area: 'Identity and access',
    status: 429,
    description: '429: the caller used its daily quota (API-key tier, session or anonymous IP); Retry-After until 00:00 UTC.',
  },
  rate_limited: { area: 'Identity and access', status: 429, description: "429: the route's per-IP (or per-account) limit was exceeded; Retry-After says when to retry." },
  session_required: { area: 'Identity and access', status: 403, description: '403: the queue dashboard needs a signed-in staff session, not an API key.' },
  metrics_token_invalid: {
    area: 'Identity and access',
    status: 401,
    description: '401: GET /metrics (web and stream processes) when METRICS_TOKEN is set and the Bearer token is missing or wrong.',
  },
  sponsored_review_required: {
    area: 'Identity and access',
    status: 409,
    description: '409: sponsored posts are reviewed through /api/v1/sponsored/<id>/approve, not the generic editorial approve.',
  },
  duplicate_submission: {
    area: 'Articles',
    status: 409,
    description: '409: the normalised URL was submitted in the last 30 days; details carry the existing article_id, status, headline and submitted_at.',
  },
  article_not_found: {
    area: 'Articles',
    status: 404,
    description: '404: no such article (or it is not published and the caller is not signed in; this holds for provenance receipts too).',
  },
  yap_not_found: { area: 'Articles', status: 404, description: '404: no such yap on this article.' },
  article_closed: { area: 'Articles', status: 409, description: '409: the article is killed or retracted and takes no more votes or yaps; details.current_status.' },
  duplicate_of_not_found: { area: 'Articles', status: 404, description: '404: a kill or retraction names duplicate_of, an article that does not exist.' },
  illegal_transition: {
    area: 'Articles',
    status: 409,
    description: '409: the editorial action is not allowed from the current status; details.current_status and details.allowed_from.',
  },
  cannot_vote_own_yap: { area: 'Articles', status: 403, description: '403: authors cannot vote on their own yaps.' },
  events_expired: {
    area: 'Events',
    status: 410,
    description:
      '410: events after the `after` cursor were deleted by retention (EVENT_LOG_RETENTION_DAYS); re-read the feed (GET /api/v1/news/), then resume from the oldest retained event with after=0; details {oldest_event_id, pruned_through}.',
  },
  profile_picture_too_large: { area: 'Profiles', status: 413, description: 'profile_picture is larger than 5 MB (413); nothing was stored.' },
  profile_picture_unsupported_type: { area: 'Profiles', status: 415, description: 'profile_picture is not a JPEG, PNG or GIF by its content (415); nothing was stored.' },
  multipart_invalid: { area: 'Profiles', status: 400, description: 'The multipart body is malformed, has more than one file, or its text fields are too large (400).' },
  username_invalid: {
    area: 'Profiles',
    status: 400,
    description: 'The username does not match /^[A-Za-z][A-Za-z0-9_]{2,29}$/ (3-30 letters, digits or _, starting with a letter) (400).',
  },
  username_reserved: { area: 'Profiles', status: 400, description: 'The username is reserved (400).' },
  username_taken: { area: 'Profiles', status: 409, description: 'Another account holds this username, in any letter case (409).' },
  user_not_found: { area: 'Profiles', status: 404, description: 'No account has this address or username (404).' },
  picture_not_found: { area: 'Profiles', status: 404, description: 'No stored profile picture has this name (404).' },
  profile_picture_unreadable: {
    area: 'Profiles',
    status: 415,
    description: 'profile_picture has the magic bytes of a JPEG, PNG or GIF but does not decode (corrupt or truncated) (415); nothing was stored.',
  },
  profile_picture_too_many_pixels: {
    area: 'Profiles',
    status: 413,
    description:
      'profile_picture is over the size caps, read from its header before decoding: a GIF at most 50 frames and 16 million pixels over all frames (width x height x frames), a JPEG or PNG at most 50 million pixels (413); nothing was stored.',
  },
  profile_picture_busy: {
    area: 'Profiles',
    status: 503,
    description: 'Every picture slot of this web process is taken and its queue is full (503); nothing was stored. Retry-After says when to send it again.',
  },
  distribution_not_found: { area: 'Rewards', status: 404, description: 'The month has not been distributed (yet) (404).' },
  drop_not_found: { area: 'Rewards', status: 404, description: "The address received nothing in that month's distribution (404)." },
  provenance_job_not_found: { area: 'Provenance', status: 404, description: '404: no check with this job id (unknown, or its result expired after 1 hour).' },
  provenance_check_failed: { area: 'Provenance', status: 503, description: '503: the check could not be completed (backing service trouble); send it again.' },
  wire_item_not_found: { area: 'Wire', status: 404, description: '404: no wire item with this id.' },
  wire_item_already_promoted: { area: 'Wire', status: 409, description: '409: the wire item was promoted before; details.article_id is its article.' },
  wire_item_duplicate: { area: 'Wire', status: 409, description: '409: an article with the same normalised URL exists (last 30 days, not killed); details.article_id.' },
  bearer_required: { area: 'Agent chat', status: 401, description: 'Agent chat endpoints take Authorization: Bearer (access token or account API key), not the cookie.' },
  telegram_not_configured: {
    area: 'Agent chat',
    status: 503,
    description: 'The service has no Telegram bot configured (TELEGRAM_BOT_TOKEN / TELEGRAM_CHAT_ID / TELEGRAM_WEBHOOK_SECRET).',
  },
  telegram_unavailable: { area: 'Agent chat', status: 502, description: 'The Telegram Bot API failed or did not answer; retry later.' },
  account_type_not_allowed: { area: 'Agent chat', status: 403, description: 'Agent chat is for accounts with account_type bot or cyborg.' },
  registration_command_not_found: { area: 'Agent chat', status: 409, description: 'No /register command from that bot username was seen in the room.' },
  registration_window_expired: { area: 'Agent chat', status: 409, description: "The bot's last /register is older than the registration window; send it again." },
  registration_claim_mismatch: { area: 'Agent chat', status: 403, description: "The /register command named another account's wallet address." },
  telegram_identity_taken: { area: 'Agent chat', status: 409, description: 'That Telegram identity is bound to another account.' },
  account_already_registered: { area: 'Agent chat', status: 409, description: 'This account is bound to another Telegram identity.' },
  agent_not_registered: { area: 'Agent chat', status: 403, description: 'The account has no linked messaging identity yet (register first).' },
  agent_muted: { area: 'Agent chat', status: 403, description: 'The agent is muted; it cannot get invite links.' },
  handshake_already_passed: { area: 'Agent chat', status: 409, description: 'The agent already has full_write.' },
  handshake_not_allowed: { area: 'Agent chat', status: 409, description: 'The agent is sandbox_write or muted; the handshake cannot lift that.' },
  handshake_attempts_exceeded: { area: 'Agent chat', status: 429, description: 'Too many handshake challenges for this account in the last hour.' },
  handshake_challenge_not_found: { area: 'Agent chat', status: 404, description: 'No challenge has this id.' },
  handshake_challenge_foreign: { area: 'Agent chat', status: 403, description: 'The challenge was issued to another account.' },
  handshake_challenge_used: { area: 'Agent chat', status: 409, description: 'The challenge was already answered (single use).' },
  handshake_challenge_superseded: { area: 'Agent chat', status: 409, description: 'A newer challenge replaced this one.' },
  handshake_challenge_expired: { area: 'Agent chat', status: 410, description: 'The challenge is past its validity (HANDSHAKE_TTL_S, 10 minutes).' },
  agent_not_found: { area: 'Agent chat', status: 404, description: 'No registered agent matches (staff endpoints).' },
  trust_level_unchanged: { area: 'Agent chat', status: 409, description: 'The agent is already at that trust level.' },
  target_ambiguous: { area: 'Agent chat', status: 400, description: 'Give exactly one of user_id and telegram_username.' },
  webhook_secret_invalid: {
    area: 'Agent chat',
    status: 401,
    description: '401: POST /telegram/webhook without the X-Telegram-Bot-Api-Secret-Token header Telegram was given, or with a wrong one.',
  },
  upgrade_required: {
    area: 'Streams',
    status: 426,
    description: '426: a plain HTTP request to the stream URL /ws/news/; connect with WebSocket there or with EventSource to /sse/news/.',
  },
  intel_pending: {
    area: 'Intel',
    status: 503,
    description: '503: the result for these parameters is being computed (cache miss); retry after Retry-After seconds. A paid request is not charged.',
  },
  intel_unavailable: { area: 'Intel', status: 503, description: '503: computing the result failed; retry later. A paid request is not charged.' },
  payment_required: {
    area: 'Payments',
    status: 402,
    description:
      '402: the intel report (or a sponsored post) is paid: sign the PAYMENT-REQUIRED requirements and retry with PAYMENT-SIGNATURE, send X-Payment-Tx + X-Payment-From, or (report) use a builder/enterprise API key.',
  },
  api_key_tier_insufficient: {
    area: 'Payments',
    status: 402,
    description: '402: a free-tier API key does not include the intel report; the builder tier does. Payment options as for payment_required.',
  },
  payment_invalid_encoding: {
    area: 'Payments',
    status: 402,
    description:
      '400 (PAYMENT-SIGNATURE, as the x402 v2 HTTP transport specifies for a malformed payment payload) or 402 (X-Payment-Tx / X-Payment-From): the header is not base64 of an x402 v2 JSON payment payload with an EIP-3009 authorization, or the fallback header is malformed (details.header). PAYMENT-REQUIRED is sent either way.',
    statusByKind: { malformed: 400 },
  },
  payment_requirements_mismatch: {
    area: 'Payments',
    status: 402,
    description: '402: the payload is for another x402 version, scheme, network or asset than the requirements offered.',
  },
  payment_invalid_signature: { area: 'Payments', status: 402, description: '402: the EIP-712 TransferWithAuthorization signature does not recover to authorization.from.' },
  payment_wrong_recipient: { area: 'Payments', status: 402, description: '402: authorization.to (or accepted.payTo) is not our payTo address.' },
  payment_wrong_amount: { area: 'Payments', status: 402, description: '402: authorization.value (or accepted.amount) differs from the price.' },
  payment_expired: { area: 'Payments', status: 402, description: '402: authorization.validBefore has passed (or is less than 6 s away).' },
  payment_not_yet_valid: { area: 'Payments', status: 402, description: '402: authorization.validAfter is in the future.' },
  payment_replayed: { area: 'Payments', status: 402, description: '402: this authorization nonce or transaction hash has already paid for a request.' },
  payment_payer_suspended: { area: 'Payments', status: 402, description: '402: a recent payment from this address failed to settle; its authorizations are refused for 24 h.' },
  payment_rejected_by_facilitator: {
    area: 'Payments',
    status: 402,
    description: '402: (X402_VERIFY_MODE=facilitator) the facilitator refused the payment; details.reason is its invalidReason.',
  },
  payment_settlement_failed: {
    area: 'Payments',
    status: 402,
    description:
      '402: (X402_SETTLEMENT_MODE=sync) the facilitator refused to settle the payment (details.reason, e.g. insufficient balance); PAYMENT-RESPONSE says success false with errorReason; the resource was not delivered.',
  },
  payment_settlement_unavailable: {
    area: 'Payments',
    status: 503,
    description:
      '503: (X402_SETTLEMENT_MODE=sync) the facilitator could not be reached or failed (5xx); nothing was transferred and the resource was not delivered; retry with the same PAYMENT-SIGNATURE.',
  },
  payment_settlement_pending: {
    area: 'Payments',
    status: 503,
    description:
      '503: (X402_SETTLEMENT_MODE=sync) the facilitator did not answer in time (or, on a retry, still cannot settle), so the transfer may or may not have happened; the resource was not delivered yet: retry with the same PAYMENT-SIGNATURE after Retry-After: once the payment has settled the retry delivers the resource once, without paying again (a payment that failed for good answers 402 payment_settlement_failed); details.status_url (GET /payments/{id}/) shows its state.',
  },
  payment_tx_unknown: { area: 'Payments', status: 402, description: '402: no receipt for X-Payment-Tx on Ethereum mainnet (unknown or still pending).' },
  payment_tx_failed: { area: 'Payments', status: 402, description: '402: the transaction reverted.' },
  payment_tx_unconfirmed: {
    area: 'Payments',
    status: 402,
    description: '402: the transaction has fewer than MAINNET_MIN_CONFIRMATIONS confirmations (details.confirmations); retry later, the transaction is not consumed.',
  },
  payment_tx_no_transfer: { area: 'Payments', status: 402, description: '402: the transaction has no USDC or USDT Transfer from X-Payment-From to payTo.' },
  payment_insufficient: { area: 'Payments', status: 402, description: '402: the stablecoin transferred from X-Payment-From to payTo in that transaction is below the price.' },
  payments_not_configured: {
    area: 'Payments',
    status: 503,
    description: '503: X402_PAY_TO is not set on this server; paid access is unavailable (builder keys still work for the report).',
  },
  payment_fallback_unavailable: {
    area: 'Payments',
    status: 503,
    description: '503: the mainnet fallback cannot be checked (ETH_RPC_URL unset, unreachable, or not Ethereum mainnet).',
  },
  payment_verifier_unavailable: {
    area: 'Payments',
    status: 503,
    description: '503: (X402_VERIFY_MODE=facilitator) the facilitator could not be reached; the payment was not consumed.',
  },
  payment_not_found: { area: 'Payments', status: 404, description: '404: no payment with this id.' },
  ad_not_found: { area: 'Sponsored', status: 404, description: '404: no sponsored post with this id.' },
  ad_not_pending: { area: 'Sponsored', status: 409, description: '409: the ad was already decided (details.ad_status); only sponsored_pending ads can be approved or rejected.' },
  ad_not_paid: { area: 'Sponsored', status: 409, description: "409: the ad's payment has not settled yet (is_paid false); approve it once GET /payments/{id}/ says settled." },
  webhook_not_found: { area: 'Webhooks', status: 404, description: "404: no webhook endpoint with this id among the caller's (another caller's endpoint is 404 too)." },
  webhook_delivery_not_found: { area: 'Webhooks', status: 404, description: '404: no delivery with this id on this endpoint.' },
  webhook_limit_reached: {
    area: 'Webhooks',
    status: 403,
    description: '403: the owner has as many webhook endpoints as its tier allows (details {limit, count}); delete one first.',
  },
  webhook_disabled: { area: 'Webhooks', status: 409, description: '409: the endpoint is disabled (see its disabled_reason); re-enable it with PATCH {"enabled": true} first.' },
  webhook_delivery_pending: {
    area: 'Webhooks',
    status: 409,
    description: '409: the delivery is still pending on its retry schedule (details.next_attempt_at); only finished deliveries can be redelivered.',
  },
  webhook_event_expired: { area: 'Webhooks', status: 410, description: "410: the delivery's event was deleted by retention (EVENT_LOG_RETENTION_DAYS); it cannot be sent again." },
  webhooks_not_configured: { area: 'Webhooks', status: 503, description: '503: webhooks are off on this deployment (production without WEBHOOK_SECRET_KEY).' },
  story_not_found: { area: 'Stories', status: 404, description: '404: no story with this id.' },
  story_merge_self: { area: 'Stories', status: 409, description: '409: a story cannot be merged into itself (details.story_id).' },
  story_merge_separated: {
    area: 'Stories',
    status: 409,
    description: '409: an editor split these two stories apart (details {story_id, other_story_id}); merge them again only with "force": true.',
  },
  story_locked: {
    area: 'Stories',
    status: 409,
    description:
      '409: the story a merge would dissolve (the body\'s story_id) is locked by an earlier merge or split (details {story_id, locked_story_id}); merge the other way, into the locked story, or send "force": true.',
  },
  story_members_not_in_story: { area: 'Stories', status: 409, description: '409: some items of a split are not members of the story (details.items lists them).' },
  story_split_all: { area: 'Stories', status: 409, description: '409: a split must leave at least one member in the story; to move every member, merge the story instead.' },
  asset_not_found: { area: 'Assets', status: 404, description: '404: no asset in the registry has this id.' },
  unknown_asset: { area: 'Assets', status: 400, description: '400: an `asset` filter names an id the registry does not know (details.value).' },
  asset_exists: { area: 'Assets', status: 409, description: '409: the registry already has an asset with this id.' },
  credibility_recompute_pending: {
    area: 'Rewards',
    status: 409,
    description: "The month's credibility recompute has not finished since the month ended (another run holds it); the distribution is not frozen. Retry later.",
  },
  credibility_flag_not_found: {
    area: 'Rewards',
    status: 404,
    description: '404: no credibility flag has this id (details.flag_id); a recompute that no longer finds the group drops its flag.',
  },
  credibility_account_not_found: { area: 'Rewards', status: 404, description: '404: no account has this id (details.account_id).' },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof errorCodes;

/** Codes of one area, in registry order. */
export function codesOfArea(area: ErrorArea): ErrorCode[] {
  return (Object.keys(errorCodes) as ErrorCode[]).filter((c) => errorCodes[c].area === area);
}

/** code -> meaning, for the OpenAPI document's description and the response check in tests. */
export const errorDescriptions: Record<string, string> = Object.fromEntries(Object.entries(errorCodes).map(([c, e]) => [c, e.description]));
