import { broadcasterOptionsFromConfig, createBroadcaster } from '../broadcaster/server.js';
import { eventStreamKey } from '../events.js';
import { boot, onShutdown } from './boot.js';

const { config, log } = boot('ws');
const broadcaster = createBroadcaster(broadcasterOptionsFromConfig(config, eventStreamKey(config.QUEUE_PREFIX), log));
onShutdown(config, log, () => broadcaster.close());
// Listen once the stream reader has its position, so no client connects before events are followed.
await broadcaster.ready;
broadcaster.server.listen(config.WS_PORT, config.HOST, () => {
  log.info({ url: `ws://${config.HOST}:${config.WS_PORT}/ws/news/` }, 'ws listening');
});
