import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/**
 * `command` connections fail fast while Redis is down (the API answers 503 instead of hanging);
 * `blocking` connections (BullMQ workers, stream readers) wait and retry forever, as BullMQ requires.
 */
export function createRedis(url: string, kind: 'command' | 'blocking', name: string): Redis {
  const opts: RedisOptions =
    kind === 'blocking'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 2000, commandTimeout: 5000, connectionName: name };
  const redis = new Redis(url, {
    ...opts,
    retryStrategy: (times) => Math.min(times * 100, 2000),
    lazyConnect: false,
  });
  // Errors surface on the commands that fail; the connection's own error events are reconnect noise.
  redis.on('error', () => undefined);
  return redis;
}
