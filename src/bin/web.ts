import http from 'node:http';
import { createApp } from '../app.js';
import { createDb } from '../db.js';
import { EventPublisher, eventStreamKey } from '../events.js';
import { QueueClient } from '../queue.js';
import { createRedis } from '../redis.js';
import { boot, onShutdown } from './boot.js';

const { config, log } = boot('web');
const db = createDb(config.DATABASE_URL, { max: config.DB_POOL_MAX, applicationName: 'web' });
const redis = createRedis(config.REDIS_URL, 'command', 'web');
const queue = new QueueClient(redis, config.REDIS_URL, config.QUEUE_PREFIX);
const events = new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), config.EVENT_STREAM_MAXLEN);
const app = createApp({ config, log, db, redis, queue, events });

const server = http.createServer(app.callback());
server.keepAliveTimeout = 5000;
server.requestTimeout = 30_000;
server.headersTimeout = 10_000;
server.listen(config.PORT, config.HOST, () => {
  log.info({ url: `http://${config.HOST}:${config.PORT}` }, 'web listening');
});

onShutdown(config, log, async () => {
  // Stop accepting; in-flight requests finish; idle keep-alive sockets are closed so close() returns.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  await closed;
  clearInterval(idle);
  await queue.close();
  await redis.quit().catch(() => undefined);
  await db.destroy();
});
