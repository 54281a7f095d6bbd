import { createBroadcaster } from '../broadcaster/server.js';
import { eventStreamKey } from '../events.js';
import { boot, onShutdown } from './boot.js';

const { config, log } = boot('ws');
const broadcaster = createBroadcaster({
  redisUrl: config.REDIS_URL,
  streamKey: eventStreamKey(config.QUEUE_PREFIX),
  trustedOrigin: config.TRUSTED_ORIGIN,
  log,
});
broadcaster.server.listen(config.WS_PORT, config.HOST, () => {
  log.info({ url: `ws://${config.HOST}:${config.WS_PORT}/ws/news/` }, 'ws listening');
});
onShutdown(config, log, () => broadcaster.close());
