/**
 * The ws process's default process metrics (src/stream/metrics.ts): collected only when
 * /metrics is enabled, since their event-loop lag sampler wakes the process on every tick.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';
import { WsMetrics } from '../../src/stream/metrics.js';

const deps = (token: string | undefined) => ({
  token,
  stats: () => {
    throw new Error('not scraped here');
  },
  redis: null,
  streamKey: 'test:events:news',
  log: createLogger('test', 'silent'),
});

describe('ws default metrics', () => {
  it('collects nothing (and samples no event-loop lag) while /metrics is disabled', async () => {
    const m = new WsMetrics(deps(undefined));
    expect(await m.registry.getMetricsAsJSON()).toEqual([]);
  });

  it('collects the process metrics, event-loop lag at a 100 ms resolution, when a token is set', async () => {
    const m = new WsMetrics(deps('a-token-of-some-length-0123456789'));
    const names = (await m.registry.getMetricsAsJSON()).map((x) => x.name);
    expect(names).toContain('process_resident_memory_bytes');
    expect(names).toContain('nodejs_eventloop_lag_p99_seconds');
    m.registry.clear();
  });
});
