import http from 'node:http';
import { createApp } from '../app.js';
import { createDb } from '../platform/db.js';
import { EventPublisher, eventStreamKey } from '../platform/events/events.js';
import { QueueClient } from '../platform/queue.js';
import { createRedis } from '../platform/redis.js';
import { webhookKeyWarning } from '../webhooks/index.js';
import { boot, onShutdown } from './boot.js';
import { connectionDrainer } from '../platform/http/drain.js';
import { koaListener } from '../platform/http/listener.js';
import { flushDailyQuota } from '../platform/http/rate-limit.js';
import { jobs } from '../../jobs/index.js';

const { config, log } = boot('web');
const webhookWarning = webhookKeyWarning(config);
if (webhookWarning) log.warn(webhookWarning);
const db = createDb(config.DATABASE_URL, { max: config.DB_POOL_MAX, applicationName: 'web', prepared: config.DB_PREPARED_STATEMENTS });
const redis = createRedis(config.REDIS_URL, 'command', 'web', { autoPipelining: true, commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
const queue = new QueueClient(jobs, redis, config.REDIS_URL, config.QUEUE_PREFIX, { readyTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS });
const events = new EventPublisher(redis, eventStreamKey(config.QUEUE_PREFIX), config.EVENT_STREAM_MAXLEN);
const app = createApp({ config, log, db, redis, queue, events });

// Hostile clients: a request head over HTTP_MAX_HEADER_BYTES gets 431; one that trickles its headers
// (slowloris) or body is answered 408 and disconnected after the timeouts, checked every second.
const server = http.createServer(
  {
    maxHeaderSize: config.HTTP_MAX_HEADER_BYTES,
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    headersTimeout: Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS),
    connectionsCheckingInterval: 1000,
    // Longer than the idle timeout of the proxies that pool connections to us (60 s is common):
    // otherwise we close a socket just as the proxy sends the next request on it, and it fails.
    keepAliveTimeout: 65_000,
  },
  koaListener(app),
);
server.listen(config.PORT, config.HOST, () => {
  log.info({ url: `http://${config.HOST}:${config.PORT}` }, 'web listening');
});

const drainer = connectionDrainer(server);

onShutdown(config, log, async () => {
  // Stop accepting; in-flight requests finish; idle keep-alive sockets are closed; a connection
  // accepted just before the signal gets up to 2 s to send its request, which is served (drain.ts).
  await drainer.drain(Math.min(2000, config.HTTP_HEADERS_TIMEOUT_MS));
  // The daily-quota counts of the last few milliseconds (src/platform/http/rate-limit.ts), before Redis closes.
  await flushDailyQuota(redis);
  await queue.close();
  await redis.quit().catch(() => undefined);
  await db.destroy();
});
