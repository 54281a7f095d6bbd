/**
 * Fault drill: webhook deliveries through a worker SIGKILL and a receiver that fails for a while.
 * A worker and a clock as real processes; four endpoints on local receivers:
 *  - `slow`   (tags: defi)          answers after 1.5 s, so attempts are in flight at the kill;
 *  - `flaky`  (token_symbols: ETH)  answers 500 for its first seconds (from its first request), then 200;
 *  - `all`    (no filters)          answers at once;
 *  - `none`   (token_symbols: NOPE) matches none of the events.
 * Events are published before, during (the worker is down) and after the kill. Every delivery is
 * verified with the Standard Webhooks reference verifier. Prints what was lost (goal: nothing):
 * every matching (endpoint, event) delivered at least once, one webhook-id per (endpoint, event)
 * across its retries, nothing to an endpoint whose filters do not match.
 *
 *   npx tsx scripts/drills/webhook-kill.ts [--events 30] [--flaky-seconds 4]
 */
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { endpointMatches, type EndpointFilters } from '../../src/webhooks/rules/match.js';
import { insertEndpoint } from '../../src/webhooks/queries.js';
import { encryptSecret, generateSecret, webhookKey } from '../../src/webhooks/secrets.js';
import { startSink, publishApproved, type Delivery } from '../lib/webhook-sink.js';
import { createUser } from './lib/actors.js';
import { JWT_SECRET, sleep, Stack, type StackOptions } from './lib/stack.js';

export interface WebhookKillReport {
  events: number;
  /** Matching (endpoint, event) pairs. */
  expected: number;
  /** Requests the receivers got (every attempt that reached them). */
  requests: number;
  /** Pairs answered 2xx at least once. */
  delivered: number;
  /** 2xx-answered requests beyond the first of a pair: at-least-once duplicates. */
  duplicates: number;
  /** (endpoint, event) pairs that needed more than one request (retries after 500s, the kill). */
  retried: number;
  inFlightAtKill: number;
  flakyFailures: number;
  badSignatures: number;
  /** Pairs whose requests carried more than one webhook-id, or a webhook-id used for two pairs. */
  idMismatches: number;
  /** Deliveries to endpoints whose filters do not match the event. */
  unexpected: number;
  recoveryMs: number;
  lost: string[];
}

async function until(what: string, fn: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(everyMs);
  }
}

export async function runWebhookKillDrill(opts: { events?: number; flakySeconds?: number; stack?: StackOptions; log?: (l: string) => void } = {}): Promise<WebhookKillReport> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`[webhook-kill] ${l}\n`));
  const N = opts.events ?? 30;
  const flakyMs = (opts.flakySeconds ?? 4) * 1000;
  const timeoutMs = 2000;
  const stack = await Stack.start({
    ...opts.stack,
    env: { JOB_LOCK_MS: '2000', WEBHOOK_TIMEOUT_MS: String(timeoutMs), WEBHOOK_RETRY_BASE_MS: '250', WEBHOOK_ENDPOINT_CONCURRENCY: '4', ...opts.stack?.env },
    log,
  });
  // The flaky receiver fails for flakyMs from the first request it gets.
  let flakyFrom: number | null = null;
  const sink = await startSink((path) => {
    if (path === '/slow') return { status: 200, delayMs: 1500 };
    if (path === '/flaky') {
      flakyFrom ??= Date.now();
      return Date.now() - flakyFrom < flakyMs ? { status: 500 } : { status: 200 };
    }
    return { status: 200 };
  });
  try {
    await stack.spawn('clock');
    const worker = await stack.spawn('worker');
    const editor = await createUser(stack.db, JWT_SECRET, ['editor']);
    const key = webhookKey({ NODE_ENV: stack.env.NODE_ENV, WEBHOOK_SECRET_KEY: stack.env.WEBHOOK_SECRET_KEY })!;
    const specs: Record<string, EndpointFilters> = { slow: { tags: ['defi'] }, flaky: { token_symbols: ['ETH'] }, all: {}, none: { token_symbols: ['NOPE'] } };
    const endpoints = new Map<string, { id: number; secret: string; filters: EndpointFilters }>();
    for (const [name, filters] of Object.entries(specs)) {
      const secret = generateSecret();
      const r = await insertEndpoint(
        stack.db,
        { kind: 'user', userId: editor.id },
        {
          url: sink.url(`/${name}`),
          description: `drill ${name}`,
          eventTypes: ['news.approved'],
          filters: { tags: filters.tags ?? null, token_addresses: null, token_symbols: filters.token_symbols ?? null },
          secretEnc: encryptSecret(key, secret),
        },
        100,
      );
      if (!r.ok) throw new Error('endpoint cap');
      endpoints.set(name, { id: r.row.id, secret, filters });
    }
    const attrsOf = (i: number) => ({ tags: i % 2 === 0 ? ['defi'] : ['markets'], token_symbols: i % 3 === 0 ? ['ETH'] : ['BTC'] });
    const published: { articleId: number; attrs: ReturnType<typeof attrsOf> }[] = [];
    const publish = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const attrs = attrsOf(i);
        published.push({ articleId: (await publishApproved(stack.db, editor.id, attrs)).articleId, attrs });
        await sleep(20);
      }
    };

    const third = Math.ceil(N / 3);
    log(`publishing ${third} events, then SIGKILL of ${worker.name} while deliveries to /slow are in flight`);
    await publish(0, third);
    await until('an attempt in flight at /slow', () => (sink.open.get('/slow') ?? 0) > 0, 20_000, 20);
    const inFlightAtKill = sink.open.get('/slow') ?? 0;
    await worker.stop('SIGKILL');
    const killedAt = Date.now();
    log(`killed with ${inFlightAtKill} requests in flight; publishing ${third} more while no worker runs`);
    await publish(third, 2 * third);
    await stack.spawn('worker');
    await publish(2 * third, N);

    // Expected pairs from the published attributes (the same rule the relay applies).
    const expected = new Set<string>();
    for (const p of published)
      for (const [name, ep] of endpoints)
        if (endpointMatches({ id: ep.id, eventTypes: ['news.approved'], filters: ep.filters }, 'news.approved', p.attrs)) expected.add(`${name}:${p.articleId}`);
    const seenPairs = () => {
      const s = new Set<string>();
      for (const d of sink.deliveries) {
        if (d.status === null || d.status >= 300) continue;
        try {
          s.add(`${d.path.slice(1)}:${(JSON.parse(d.body) as { data: { id: number } }).data.id}`);
        } catch {
          /* counted below */
        }
      }
      return s;
    };
    log(`waiting for ${expected.size} (endpoint, event) pairs`);
    await until('every matching pair delivered', () => [...expected].every((k) => seenPairs().has(k)), 90_000, 200).catch((err: Error) => log(err.message));
    const recoveryMs = Date.now() - killedAt;
    await sleep(500);

    const lost: string[] = [];
    let badSignatures = 0;
    let unexpected = 0;
    const idsByPair = new Map<string, Set<string>>();
    const pairsById = new Map<string, Set<string>>();
    const countByPair = new Map<string, number>();
    const requestsByPair = new Map<string, number>();
    for (const d of sink.deliveries as Delivery[]) {
      const name = d.path.slice(1);
      const ep = endpoints.get(name);
      if (!ep) continue;
      let msg: { data: { id: number } };
      try {
        msg = new Webhook(ep.secret).verify(d.body, { 'webhook-id': d.webhookId, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature }) as typeof msg;
      } catch {
        badSignatures++;
        continue;
      }
      const pair = `${name}:${msg.data.id}`;
      if (!expected.has(pair)) unexpected++;
      requestsByPair.set(pair, (requestsByPair.get(pair) ?? 0) + 1);
      if (d.status !== null && d.status < 300) countByPair.set(pair, (countByPair.get(pair) ?? 0) + 1);
      idsByPair.set(pair, (idsByPair.get(pair) ?? new Set()).add(d.webhookId));
      pairsById.set(d.webhookId, (pairsById.get(d.webhookId) ?? new Set()).add(pair));
    }
    const missing = [...expected].filter((k) => !countByPair.has(k));
    const idMismatches = [...idsByPair.values()].filter((s) => s.size > 1).length + [...pairsById.values()].filter((s) => s.size > 1).length;
    const okRequests = [...countByPair.values()].reduce((a, b) => a + b, 0);
    const flakyFailures = sink.deliveries.filter((d) => d.path === '/flaky' && d.status === 500).length;
    if (missing.length) lost.push(`${missing.length} matching deliveries never arrived (${missing.slice(0, 5).join(', ')})`);
    if (unexpected) lost.push(`${unexpected} deliveries to endpoints whose filters do not match`);
    if (badSignatures) lost.push(`${badSignatures} deliveries failed signature verification`);
    if (idMismatches) lost.push(`${idMismatches} webhook-id mismatches across retries`);
    if (inFlightAtKill === 0) lost.push('the kill did not happen mid-delivery');
    return {
      events: published.length,
      expected: expected.size,
      requests: sink.deliveries.length,
      delivered: countByPair.size,
      duplicates: okRequests - countByPair.size,
      retried: [...requestsByPair.values()].filter((n) => n > 1).length,
      inFlightAtKill,
      flakyFailures,
      badSignatures,
      idMismatches,
      unexpected,
      recoveryMs,
      lost,
    };
  } finally {
    await sink.close();
    await stack.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { events: { type: 'string', default: '30' }, 'flaky-seconds': { type: 'string', default: '4' } } });
  const r = await runWebhookKillDrill({ events: Number(values.events), flakySeconds: Number(values['flaky-seconds']) });
  console.log(JSON.stringify(r, null, 2));
  console.log(r.lost.length ? `LOST: ${r.lost.join('; ')}` : 'nothing lost');
  process.exit(r.lost.length ? 1 : 0);
}
