/**
 * Webhook signing secrets: generated as the Standard Webhooks specification says (`whsec_` + base64
 * of 32 random bytes; the HMAC key is the decoded bytes), shown to the owner once, and stored only
 * encrypted (AES-256-GCM under WEBHOOK_SECRET_KEY), so a database dump alone cannot forge deliveries.
 *
 * Stored form: `v1:` + base64(12-byte IV | ciphertext | 16-byte tag), with a fixed associated-data
 * label. Without WEBHOOK_SECRET_KEY: outside production a fixed, public development key is used and
 * the web and worker processes log a warning at start; in production webhooks are off (503).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const FORMAT = 'v1:';
const AAD = Buffer.from('squid-news webhook signing secret v1');

/** The development key: public by construction (derived from a constant), so never safe for real secrets. */
export const DEV_WEBHOOK_KEY = createHash('sha256').update('squid-news development webhook key: not a secret').digest();

/**
 * The key that encrypts signing secrets: WEBHOOK_SECRET_KEY; unset outside production, the public
 * development key; unset in production, none (webhooks are then not configured: 503).
 */
export function webhookKey(config: { WEBHOOK_SECRET_KEY?: string; NODE_ENV: string }): Buffer | null {
  if (config.WEBHOOK_SECRET_KEY) return Buffer.from(config.WEBHOOK_SECRET_KEY, 'base64');
  return config.NODE_ENV === 'production' ? null : DEV_WEBHOOK_KEY;
}

/** The start-up warning of web and worker when secrets are not protected by a real key (null: none needed). */
export function webhookKeyWarning(config: { WEBHOOK_SECRET_KEY?: string; NODE_ENV: string }): string | null {
  if (config.WEBHOOK_SECRET_KEY) return null;
  return config.NODE_ENV === 'production'
    ? 'WEBHOOK_SECRET_KEY is unset: webhooks are disabled (the /api/v1/webhooks/ endpoints answer 503 webhooks_not_configured); set it to base64 of 32 random bytes (openssl rand -base64 32)'
    : 'WEBHOOK_SECRET_KEY is unset: webhook signing secrets are encrypted with the fixed, PUBLIC development key; anyone with a database dump can read them. Set WEBHOOK_SECRET_KEY (openssl rand -base64 32) for anything but local development';
}

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export function encryptSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return FORMAT + Buffer.concat([iv, ct, cipher.getAuthTag()]).toString('base64');
}

// Decrypting is cheap, but every delivery needs its endpoint's secret: keep a few hundred.
const plainCache = new Map<string, string>();
const PLAIN_CACHE_MAX = 2048;

/** Throws when the ciphertext was not made with this key (or was tampered with). */
export function decryptSecret(key: Buffer, stored: string): string {
  const cacheKey = `${key.toString('base64')}|${stored}`;
  const hit = plainCache.get(cacheKey);
  if (hit !== undefined) return hit;
  if (!stored.startsWith(FORMAT)) throw new Error('unknown webhook secret format');
  const raw = Buffer.from(stored.slice(FORMAT.length), 'base64');
  const iv = raw.subarray(0, 12);
  const tag = raw.subarray(raw.length - 16);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(AAD);
  decipher.setAuthTag(tag);
  const plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8');
  if (plainCache.size >= PLAIN_CACHE_MAX) plainCache.delete(plainCache.keys().next().value!);
  plainCache.set(cacheKey, plain);
  return plain;
}

/**
 * The webhook-signature header value: `v1,<base64 HMAC-SHA256>` of `${id}.${timestamp}.${body}` under
 * each secret, space-separated (during a rotation: the new secret's first, then the old one's).
 */
export function signatureHeader(secrets: readonly string[], msgId: string, timestampS: number, body: string): string {
  return secrets
    .map((s) => {
      const key = Buffer.from(s.startsWith(SECRET_PREFIX) ? s.slice(SECRET_PREFIX.length) : s, 'base64');
      return 'v1,' + createHmac('sha256', key).update(`${msgId}.${timestampS}.${body}`).digest('base64');
    })
    .join(' ');
}
