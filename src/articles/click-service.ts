/**
 * Counting a click on an article. A counted click (src/articles/rules/click.ts) is deduplicated per
 * reader (user id, else a hash of IP + user agent) for CLICK_DEDUPE_S seconds in Redis, adds to the
 * article's `clicks` and schedules its hot-score recompute.
 */
import { createHash } from 'node:crypto';
import type { AppDeps } from '../platform/deps.js';
import { articleClickKey } from '../platform/redis-keys.js';
import { scheduleHotScore } from './hot-score-service.js';
import { addClick } from './queries.js';
import { countsAsClick } from './rules/click.js';

interface ClickRequest {
  method: string;
  userAgent: string | undefined;
  userId: number | undefined;
  ip: string;
}

export async function countClick(deps: AppDeps, article: { id: number; status: string }, req: ClickRequest): Promise<void> {
  if (!countsAsClick(req, article.status)) return;
  const reader = req.userId !== undefined ? `u${req.userId}` : createHash('sha256').update(`${req.ip}|${req.userAgent}`).digest('base64url').slice(0, 22);
  const ttl = deps.config.CLICK_DEDUPE_S;
  const first = ttl === 0 || (await deps.redis.set(articleClickKey(deps.config.QUEUE_PREFIX, article.id, reader), '1', 'EX', ttl, 'NX')) === 'OK';
  if (first && (await addClick(deps.db, article.id))) await scheduleHotScore(deps, article.id);
}
