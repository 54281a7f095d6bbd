/**
 * The editors' console as a browser meets it: the web app on one local port and the broadcaster's
 * SSE stream on another, the web origin trusted by both (CSRF, the stream's Origin check, the
 * sign-in message) and the console pointed at that stream.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import { eventStreamKey } from '../../src/platform/events/events.js';
import { koaListener } from '../../src/platform/http/listener.js';
import { createBroadcaster, type Broadcaster } from '../../src/stream/server.js';
import type { TestDeps } from './context.js';

export interface ConsoleStack {
  base: string;
  streamUrl: string;
  broadcaster: Broadcaster;
  close(): Promise<void>;
}

export async function startConsoleStack(deps: TestDeps, opts: { batchMs?: number; maxPerIp?: number; config?: Partial<TestDeps['config']> } = {}): Promise<ConsoleStack> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const broadcaster = createBroadcaster({
    redisUrl: deps.config.REDIS_URL,
    streamKey: eventStreamKey(deps.config.QUEUE_PREFIX),
    trustedOrigin: base,
    log: deps.log,
    jwtSecret: deps.config.JWT_SECRET,
    readBlockMs: 500,
    ...(opts.batchMs === undefined ? {} : { batchMs: opts.batchMs }),
    ...(opts.maxPerIp === undefined ? {} : { maxPerIp: opts.maxPerIp }),
  });
  await broadcaster.ready;
  await new Promise<void>((r) => broadcaster.server.listen(0, '127.0.0.1', r));
  const streamUrl = `http://127.0.0.1:${(broadcaster.server.address() as AddressInfo).port}/sse/news/`;
  Object.assign(deps.config, { TRUSTED_ORIGIN: base, PUBLIC_BASE_URL: base, EDITOR_STREAM_URL: streamUrl, ...opts.config });
  server.on('request', koaListener(createApp(deps)));
  return {
    base,
    streamUrl,
    broadcaster,
    async close() {
      await broadcaster.close();
      await new Promise((r) => server.close(r));
    },
  };
}
