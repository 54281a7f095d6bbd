/**
 * Fault drill: a slow WebSocket client (it stops reading its socket) must not delay the others.
 * Events (2 KiB headlines, so buffers fill) are published at a steady rate to one ws process with
 * `--clients` normal clients and one client whose socket is paused. Printed: delivery latency of
 * the normal clients (p50/p99/max, event publish -> frame received) with and without the slow
 * client, whether every normal client got every event, and what the slow client got when it
 * resumed reading (expected: a reconcile frame with reason "backlog", then live events).
 *
 *   npx tsx scripts/drills/slow-client.ts [--clients 50] [--events 3000] [--rate 500]
 */
import { parseArgs } from 'node:util';
import { EventPublisher, eventStreamKey } from '../../src/platform/events/events.js';
import { auditClients, lastStreamId, percentile, streamEventsAfter, StreamClient } from './lib/actors.js';
import { sleep, Stack, type StackOptions } from './lib/stack.js';

export interface SlowClientReport {
  phases: { withSlowClient: boolean; events: number; p50Ms: number; p99Ms: number; maxMs: number }[];
  normal: ReturnType<typeof auditClients>;
  slow: { reconciles: string[]; eventsAfterResume: number; stillConnected: boolean };
  lost: string[];
}

/** The normal clients' p99 allowed with a slow client connected, given the p99 without. */
const slowBound = (baseP99: number) => Math.max(1000, baseP99 * 3);

async function phase(stack: Stack, clients: StreamClient[], latencies: number[], events: number, rate: number, startId: number) {
  const publisher = new EventPublisher(stack.redis, eventStreamKey(stack.prefix), 1_000_000);
  const pad = 'x'.repeat(2048);
  latencies.length = 0;
  const t0 = Date.now();
  for (let i = 0; i < events; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await sleep(wait);
    const id = startId + i;
    // The planned publish time rides in the slug: a publisher that falls behind shows as latency.
    await publisher.publish({
      type: 'news.approved',
      id,
      slug: `t${due}`,
      status: 'approved',
      headline: pad,
      date_posted: new Date().toISOString(),
      origin: 'manual',
      sponsored: null,
    });
  }
  await sleep(1500);
  void clients;
  return { p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), maxMs: latencies.reduce((a, b) => Math.max(a, b), 0) };
}

export async function runSlowClientDrill(
  opts: { clients?: number; events?: number; rate?: number; stack?: StackOptions; log?: (l: string) => void } = {},
): Promise<SlowClientReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`[slow-client] ${l}\n`));
  const events = opts.events ?? 3000;
  const rate = opts.rate ?? 500;
  const stack = await Stack.start({ ...opts.stack, env: { WS_QUEUE_MAX: '200', ...opts.stack?.env }, log });
  const lost: string[] = [];
  try {
    await stack.spawn('ws');
    const latencies: number[] = [];
    const onEvent = (e: { slug: string }, at: number) => {
      const planned = Number(e.slug.slice(1));
      if (Number.isFinite(planned)) latencies.push(at - planned);
    };
    const clients = Array.from(
      { length: opts.clients ?? 50 },
      (_, i) => new StreamClient(stack.wsUrl, stack.env.TRUSTED_ORIGIN, { localAddress: `127.0.3.${1 + (i % 250)}`, onEvent }),
    );
    await Promise.all(clients.map((c) => c.opened));
    log(`baseline: ${events} events at ${rate}/s to ${clients.length} clients`);
    const base = await phase(stack, clients, latencies, events, rate, 1);

    const slow = new StreamClient(stack.wsUrl, stack.env.TRUSTED_ORIGIN, { localAddress: '127.0.3.251' });
    await slow.opened;
    await sleep(200);
    slow.pause();
    const baseline = await lastStreamId(stack.redis, eventStreamKey(stack.prefix));
    log('the same with one client that stopped reading');
    let withSlow = await phase(stack, clients, latencies, events, rate, 1_000_000);
    let phases = 1;
    if (withSlow.p99Ms > slowBound(base.p99Ms)) {
      // A machine-wide stall (the drill shares its cores with other suites in CI) looks the same
      // as a slow client holding the others back for one phase; the slow client would do it again.
      log(`p99 ${withSlow.p99Ms} ms with the slow client; measuring that phase once more`);
      withSlow = await phase(stack, clients, latencies, events, rate, 2_000_000);
      phases = 2;
    }
    const streamEvents = await streamEventsAfter(stack.redis, eventStreamKey(stack.prefix), baseline);
    const normal = auditClients(clients, streamEvents);
    const before = slow.events.size;
    slow.resumeReading();
    await sleep(2000);
    const publisher = new EventPublisher(stack.redis, eventStreamKey(stack.prefix), 1_000_000);
    await publisher.publish({
      type: 'news.approved',
      id: 9_999_999,
      slug: 'after',
      status: 'approved',
      headline: 'after',
      date_posted: new Date().toISOString(),
      origin: 'manual',
      sponsored: null,
    });
    await sleep(1000);
    const slowReport = { reconciles: slow.reconciles.map((r) => r.reason), eventsAfterResume: slow.events.size - before, stillConnected: slow.open };
    for (const c of [...clients, slow]) c.stop();
    if (normal.lost.length || normal.reconciled) lost.push(`${normal.lost.length + normal.reconciled} normal clients missed events`);
    if (withSlow.p99Ms > slowBound(base.p99Ms))
      lost.push(`normal clients slowed down: p99 ${withSlow.p99Ms} ms vs ${base.p99Ms} ms without the slow client (${phases === 2 ? 'in both phases with it' : 'one phase'})`);
    if (!slowReport.reconciles.includes('backlog')) lost.push('the slow client was not told to reconcile (backlog)');
    if (!slow.events.has('news.approved:9999999')) lost.push('the slow client did not get live events after catching up');
    return {
      phases: [
        { withSlowClient: false, events, ...base },
        { withSlowClient: true, events, ...withSlow },
      ],
      normal: { ...normal, lost: normal.lost.slice(0, 3) },
      slow: slowReport,
      lost,
    };
  } finally {
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { clients: { type: 'string' }, events: { type: 'string' }, rate: { type: 'string' } } });
  const report = await runSlowClientDrill({
    clients: values.clients ? Number(values.clients) : undefined,
    events: values.events ? Number(values.events) : undefined,
    rate: values.rate ? Number(values.rate) : undefined,
  });
  console.log(JSON.stringify(report, null, 2));
  console.log(report.lost.length ? `LOST: ${report.lost.join('; ')}` : 'lost: nothing');
  process.exit(report.lost.length ? 1 : 0);
}
