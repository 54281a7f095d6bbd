/**
 * The scrape credential of /metrics (web and ws): `Authorization: Bearer <METRICS_TOKEN>`. Without a
 * configured token the endpoint does not exist (404, like any unknown path), so a deployment that
 * forgot to set it exposes nothing. Compared in constant time over SHA-256 digests (no length leak).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

type ScrapeCheck = 'disabled' | 'unauthorized' | 'ok';

const digest = (s: string) => createHash('sha256').update(s).digest();

export function checkScrapeToken(configured: string | undefined, authorization: string | undefined): ScrapeCheck {
  if (!configured) return 'disabled';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return 'unauthorized';
  return timingSafeEqual(digest(m[1]), digest(configured)) ? 'ok' : 'unauthorized';
}

export const METRICS_PATH = '/metrics';
