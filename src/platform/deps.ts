import type { Config } from './config.js';
import type { Db } from './db.js';
import type { EventPublisher } from './events/events.js';
import type { Logger } from './logger.js';
import type { QueueClient } from './queue.js';
import type { Redis } from './redis.js';

/** What the web process hands to createApp(); tests build the same from their own Postgres and Redis. */
export interface AppDeps {
  config: Config;
  log: Logger;
  db: Db;
  redis: Redis;
  queue: QueueClient;
  events: EventPublisher;
}
