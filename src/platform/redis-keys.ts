/**
 * Every Redis key this service reads or writes, built in one place, all under QUEUE_PREFIX (BullMQ
 * builds its own queue keys, `<prefix>:<queue name>:...`, from the same prefix). A new key gets a
 * function here, so two features cannot pick the same name and an operator can see what is stored.
 */

/** The event stream the relay appends to and the broadcaster reads. */
export const eventStreamKey = (prefix: string): string => `${prefix}:events:news`;

/** Sign-in nonces (SIWE), one key each, expiring with the nonce. */
export const nonceKey = (prefix: string, nonce: string): string => `${prefix}:nonce:${nonce}`;

/** Job metrics the workers write and /metrics on web exports (a hash). */
export const jobMetricsKey = (prefix: string): string => `${prefix}:metrics:jobs`;

/** A caller's request counter for one UTC day (`caller` is `key:<api key id>`, `user:<id>` or `ip:<address>`). */
export const dailyQuotaKey = (prefix: string, caller: string, day: string): string => `${prefix}:quota:${caller}:${day}`;

/** An API key's daily counter (the caller id of a key-authenticated request). */
export const apiKeyQuotaKey = (prefix: string, keyId: string, day: string): string => dailyQuotaKey(prefix, `key:${keyId}`, day);

/** The key prefix rate-limiter-flexible puts before each limited caller of one limit. */
export const rateLimitKeyPrefix = (prefix: string, limit: string): string => `${prefix}:rl:${limit}`;

/** A cached intel result of one parameter set. */
export const intelResultKey = (prefix: string, kind: string, paramsId: string): string => `${prefix}:intel:${kind}:${paramsId}`;

/** The posting-signal basis of one UTC hour (intel). */
export const intelPostingBasisKey = (prefix: string, hourStart: Date): string => `${prefix}:intel:posting-basis:${hourStart.toISOString()}`;

/** Parameter sets of one intel kind requested lately (a sorted set by time), warmed by the scheduled run. */
export const intelRequestedKey = (prefix: string, kind: string): string => `${prefix}:intel:requested:${kind}`;

/** A payment's replay guard (set once when the authorization or transaction is used). */
export const paymentUsedKey = (prefix: string, replayKey: string): string => `${prefix}:pay:used:${replayKey}`;

/** Held while one request settles a pending payment through the facilitator (one attempt at a time). */
export const paymentSettlingKey = (prefix: string, paymentId: string): string => `${prefix}:pay:settling:${paymentId}`;

/** A payer suspended after a failed settlement (lower-case address). */
export const payerSuspendedKey = (prefix: string, payer: string): string => `${prefix}:pay:suspended:${payer.toLowerCase()}`;

/** The editor console's cached provenance check of one article. */
export const editorProvenanceKey = (prefix: string, articleId: number): string => `${prefix}:editor:prov:${articleId}`;

/** The feed cache's generation: the relay INCRs it to retire every cached page at once. */
export const feedGenerationKey = (prefix: string): string => `${prefix}:feed:gen`;

/** One cached feed page (or count) of one variant. */
export const feedEntryKey = (prefix: string, variant: string): string => `${prefix}:feed:v:${variant}`;

/** The ETag and Last-Modified last served for one feed variant. */
export const feedLastModifiedKey = (prefix: string, variant: string): string => `${prefix}:feed:lm:${variant}`;

/** One reader's click on one article, kept CLICK_DEDUPE_S so a repeat is not counted. */
export const articleClickKey = (prefix: string, articleId: number, reader: string): string => `${prefix}:click:${articleId}:${reader}`;

/** A user's cached earnings estimate for one month. */
export const earningsKey = (prefix: string, userId: number, month: string): string => `${prefix}:earnings:${userId}:${month}`;

/** Mindshare of every asset (a hash: `_meta` and one field per asset id), replaced whole by the asset-mindshare job. */
export const assetMindshareKey = (prefix: string): string => `${prefix}:assets:mindshare`;
