/** Sign-in fingerprints (src/identity/fingerprints.ts): one row per account, way, key, hashed address, hashed user agent and day. */
import type { Db } from '../platform/db.js';
import type { Fingerprint } from './fingerprints.js';

export async function insertFingerprint(db: Db, f: Fingerprint): Promise<void> {
  await db
    .insertInto('sign_in_fingerprints')
    .values({ user_id: f.userId, via: f.via, api_key_id: f.apiKeyId, ip_hash: f.ipHash, ua_hash: f.uaHash })
    .onConflict((oc) => oc.doNothing())
    .execute();
}
