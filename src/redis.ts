import { Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/**
 * `command` connections fail fast while Redis is down (the API answers 503 instead of hanging);
 * `blocking` connections (BullMQ workers, stream readers) wait and retry forever, as BullMQ requires.
 *
 * `autoPipelining` (the web process's request path): commands issued during one turn of the event
 * loop, by all the requests in flight, go to Redis in one write and their replies come back in one
 * read. Under load that turns one write syscall per command (a fifth of the web process's CPU in the
 * feed benchmark) into one per loop turn. BullMQ is not given such a connection (QueueClient
 * duplicates it without the option): Bull users reported lost job data with auto-pipelining.
 */
export function createRedis(url: string, kind: 'command' | 'blocking', name: string, extra: { autoPipelining?: boolean } = {}): Redis {
  const opts: RedisOptions =
    kind === 'blocking'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 2000, commandTimeout: 5000, connectionName: name };
  const redis = new Redis(url, {
    ...opts,
    enableAutoPipelining: kind === 'command' && extra.autoPipelining === true,
    retryStrategy: (times) => Math.min(times * 100, 2000),
    lazyConnect: false,
  });
  // Errors surface on the commands that fail; the connection's own error events are reconnect noise.
  redis.on('error', () => undefined);
  return redis;
}
