/**
 * Counting a click on an article. A counted click (src/articles/rules/click.ts) is deduplicated per
 * reader (user id, else a hash of IP + user agent) for CLICK_DEDUPE_S seconds in Redis, adds to the
 * article's `clicks` and schedules its hot-score recompute. A signed-in reader is also recorded in
 * article_readers (first time only), the click-through evidence the credibility rules read.
 */
import { createHash } from 'node:crypto';
import type { AppDeps } from '../platform/deps.js';
import { articleClickKey } from '../platform/redis-keys.js';
import { scheduleHotScore } from './hot-score-service.js';
import { addClick, addReader } from './queries.js';
import { countsAsClick, opensAsReader } from './rules/click.js';

interface ClickRequest {
  method: string;
  userAgent: string | undefined;
  userId: number | undefined;
  ip: string;
}

export async function countClick(deps: AppDeps, article: { id: number; status: string }, req: ClickRequest): Promise<void> {
  if (opensAsReader(req)) await addReader(deps.db, article.id, req.userId!);
  if (!countsAsClick(req, article.status)) return;
  const reader = req.userId !== undefined ? `u${req.userId}` : createHash('sha256').update(`${req.ip}|${req.userAgent}`).digest('base64url').slice(0, 22);
  const ttl = deps.config.CLICK_DEDUPE_S;
  const first = ttl === 0 || (await deps.redis.set(articleClickKey(deps.config.QUEUE_PREFIX, article.id, reader), '1', 'EX', ttl, 'NX')) === 'OK';
  if (first && (await addClick(deps.db, article.id))) await scheduleHotScore(deps, article.id);
}
