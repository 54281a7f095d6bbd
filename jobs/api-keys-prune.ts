/**
 * api-keys-prune: daily, bounds what anonymous sign-ups leave behind. A free key that no account
 * holds and that was never used is deleted API_KEY_UNUSED_DAYS after its sign-up, in batches of
 * RETENTION_BATCH. Keys held by an account, paid tiers and keys that made a request stay.
 */
import { pruneUnusedKeys } from '../src/identity/index.js';
import { retentionJob } from './retention-job.js';

export const job = retentionJob('api-keys-prune', (c) => c.API_KEY_UNUSED_DAYS, pruneUnusedKeys);
