/**
 * Helpers for the intel, payment and sponsored-post tests: seed articles, API keys of a tier,
 * in-process workers, and a second set of AppDeps (own Redis and Postgres connections) on the same
 * database and queue prefix, standing in for a second web process.
 */
import { generateApiKey, generateKeyId, type Tier } from '../../src/identity/api-keys.js';
import type { Config } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import type { AppDeps } from '../../src/platform/deps.js';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { createLogger } from '../../src/platform/logger.js';
import { insertApiKey } from '../../src/identity/api-key-queries.js';
import { QueueClient } from '../../src/platform/queue.js';
import { createRedis } from '../../src/platform/redis.js';
import type { TestDeps } from './context.js';
import { jobs } from '../../jobs/index.js';

let seq = 0;

interface ArticleSeed {
  tags?: string[];
  publishedAt?: Date | null;
  createdAt?: Date;
  clicks?: number;
  status?: 'approved' | 'submitted' | 'scheduled' | 'killed';
  source?: string;
  votesCast?: number;
  voteCount?: number;
  yapCount?: number;
  hotScore?: number;
  sponsored?: Record<string, unknown> | null;
  headline?: string;
}

export async function insertArticle(db: AppDeps['db'], a: ArticleSeed = {}): Promise<number> {
  const n = ++seq;
  const status = a.status ?? 'approved';
  const published = a.publishedAt === undefined ? (status === 'approved' ? new Date() : null) : a.publishedAt;
  const row = await db
    .insertInto('articles')
    .values({
      slug: `a-${n}`,
      headline: a.headline ?? `Article ${n}`,
      url: `https://${a.source ?? 'example.com'}/a/${n}`,
      normalized_url: `https://${a.source ?? 'example.com'}/a/${n}`,
      source: a.source ?? 'example.com',
      status,
      tags: a.tags ?? [],
      clicks: a.clicks ?? 0,
      votes_cast: a.votesCast ?? 0,
      vote_count: a.voteCount ?? 0,
      yap_count: a.yapCount ?? 0,
      published_at: published,
      created_at: a.createdAt ?? published ?? new Date(),
      sponsored: a.sponsored ? JSON.stringify(a.sponsored) : null,
      origin: a.sponsored ? 'x402_ad' : 'manual',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // The insert trigger has created its article_hot_scores row (hot_score 0).
  if (a.hotScore !== undefined) await db.updateTable('article_hot_scores').set({ hot_score: a.hotScore }).where('article_id', '=', row.id).execute();
  return row.id;
}

export async function apiKeyOfTier(db: AppDeps['db'], tier: Tier): Promise<Record<string, string>> {
  const key = generateApiKey();
  const id = generateKeyId();
  await insertApiKey(db, { id, hash: key.hash, first4: key.first4, last4: key.last4, name: `test ${tier}`, email: null, useCase: null, userId: null });
  await db.updateTable('api_keys').set({ tier }).where('id', '=', id).execute();
  return { authorization: `Bearer ${key.raw}` };
}

export { startTestWorkers } from './workers.js';

/** Another process's dependencies: same database and prefix, its own connections; config overrides allowed. */
export function siblingDeps(deps: TestDeps, overrides: Partial<Config> = {}): AppDeps & { close(): Promise<void> } {
  const config = { ...deps.config, ...overrides } as Config;
  const db = createDb(config.DATABASE_URL, { max: 5 });
  const redis = createRedis(config.REDIS_URL, 'command', 'sibling');
  const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX);
  const events = new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), config.EVENT_STREAM_MAXLEN);
  return {
    config,
    log: createLogger('test', 'silent'),
    db,
    redis,
    queue,
    events,
    async close() {
      await queue.close();
      await db.destroy();
      redis.disconnect();
    },
  };
}

export const hoursAgo = (h: number, now = Date.now()) => new Date(now - h * 3600_000);
