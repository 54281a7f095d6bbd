import { broadcasterOptionsFromConfig, createBroadcaster } from '../stream/index.js';
import { eventStreamKey } from '../platform/events/events.js';
import { WsMetrics } from '../stream/index.js';
import { createRedis } from '../platform/redis.js';
import { boot, onShutdown } from './boot.js';
import { createDb } from '../platform/db.js';
import { unknownAssetIds } from '../assets/index.js';

const { config, log } = boot('ws');
const streamKey = eventStreamKey(config.QUEUE_PREFIX);
// GET /metrics on the stream port (same token as web); its Redis connection only when enabled.
const metricsRedis = config.METRICS_TOKEN ? createRedis(config.REDIS_URL, 'command', 'ws-metrics', { commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS }) : null;
const metrics = new WsMetrics({ token: config.METRICS_TOKEN, stats: () => broadcaster.stats(), redis: metricsRedis, streamKey, log });
// A small pool for the one look-up the stream makes: the asset ids a subscription's asset filter names.
const db = createDb(config.DATABASE_URL, { max: 2, prepared: config.DB_PREPARED_STATEMENTS });
const broadcaster = createBroadcaster({
  ...broadcasterOptionsFromConfig(config, streamKey, log),
  httpHandler: metrics.handle,
  unknownAssets: (ids) => unknownAssetIds(db, ids),
});
// Hostile clients: the same head-size limit and slowloris timeouts as web, for upgrades too.
(broadcaster.server as unknown as { maxHeaderSize: number }).maxHeaderSize = config.HTTP_MAX_HEADER_BYTES;
broadcaster.server.headersTimeout = config.HTTP_HEADERS_TIMEOUT_MS;
broadcaster.server.requestTimeout = Math.max(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS);
(broadcaster.server as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1000;
onShutdown(config, log, async () => {
  await broadcaster.close();
  metricsRedis?.disconnect();
  await db.destroy();
});
// Listen once the stream reader has its position, so no client connects before events are followed.
await broadcaster.ready;
broadcaster.server.listen(config.WS_PORT, config.HOST, () => {
  log.info({ url: `ws://${config.HOST}:${config.WS_PORT}/ws/news/` }, 'ws listening');
});
