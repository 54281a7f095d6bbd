/**
 * Sign-in fingerprints, the evidence of accounts used together (docs/credibility.md): the client
 * address and user agent of a wallet sign-in or of a request made with an API key linked to an
 * account, stored only as keyed hashes (HMAC-SHA256 under JWT_SECRET, 22 base64url characters),
 * never raw and never with a secret. One row per account, way, key, address, user agent and UTC day;
 * a process remembers what it recorded today so an API key's requests cost one insert a day each.
 */
import { createHmac } from 'node:crypto';
import type { Db } from '../platform/db.js';
import { insertFingerprint } from './fingerprint-queries.js';

interface Client {
  ip: string;
  userAgent: string | undefined;
}

export interface Fingerprint {
  userId: number;
  via: 'wallet' | 'api_key';
  apiKeyId: string | null;
  ipHash: string;
  uaHash: string;
}

/** The keyed hash stored for a client address or user agent. */
function fingerprintHash(key: string, kind: 'ip' | 'ua', value: string): string {
  return createHmac('sha256', key).update(`fingerprint:${kind}:${value}`).digest('base64url').slice(0, 22);
}

export function fingerprintOf(key: string, user: { id: number; via: Fingerprint['via']; apiKeyId?: string }, client: Client): Fingerprint {
  return {
    userId: user.id,
    via: user.via,
    apiKeyId: user.apiKeyId ?? null,
    ipHash: fingerprintHash(key, 'ip', client.ip),
    uaHash: fingerprintHash(key, 'ua', client.userAgent ?? ''),
  };
}

const MAX_REMEMBERED = 50_000;

/** Records an API key's use once a day per (key, address, user agent) in this process. */
export function keyUseRecorder(db: Db, key: string): (user: { id: number; apiKeyId: string }, client: Client) => Promise<void> {
  let day = '';
  const seen = new Set<string>();
  return async (user, client) => {
    const today = new Date().toISOString().slice(0, 10);
    if (today !== day || seen.size >= MAX_REMEMBERED) {
      day = today;
      seen.clear();
    }
    const f = fingerprintOf(key, { id: user.id, via: 'api_key', apiKeyId: user.apiKeyId }, client);
    const k = `${f.userId}|${f.apiKeyId}|${f.ipHash}|${f.uaHash}`;
    if (seen.has(k)) return;
    seen.add(k);
    await insertFingerprint(db, f);
  };
}
