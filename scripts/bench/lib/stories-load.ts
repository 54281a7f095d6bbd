/**
 * `npm run bench:stories -- --load [--items=200000] [--burst=3000] [--rate=50] [--seconds=20]`:
 * the story assigner at size. Seeds N assigned items in the last 30 days (stories-load-seed.ts),
 * starts the worker process of the Procfile (src/bin/worker.ts: every job and the relay), then
 *  (a) burst: `burst` new wire items (half new stories, half more coverage of seeded stories of the
 *      last 72 hours) committed at once, their story-assign jobs enqueued together; items assigned
 *      per second. Baseline: the same number of ping jobs through the same worker (its queue
 *      throughput without assignment).
 *  (b) steady: wire items ingested one by one at `rate`/s through the wire's ingestion (commit,
 *      `news.tsunami`, relay, story-assign); per item the time from its commit until its story_id
 *      is readable in PostgreSQL (what GET /api/v1/stories/ and the records read; polled every
 *      10 ms). Baseline: the same items' `news.tsunami` reaching the event stream (commit -> relay
 *      -> Redis), the path without assignment.
 *  (c) GET /api/v1/news/?collapse=story against the plain feed, pages 1-10 (each a cache miss).
 * Each of (a) and (b) runs three times; medians are printed.
 */
import http from 'node:http';
import { sql } from 'kysely';
import { createApp } from '../../../src/app.js';
import { koaListener } from '../../../src/platform/http/listener.js';
import { addSource, ingestItems } from '../../../src/wire/queries.js';
import { startProcfileType } from '../../lib/harness.js';
import { benchLog, benchStack, median } from './bench-stack.js';
import { corpus, rng, seedStoriesLoad, type SeedItem } from './stories-load-seed.js';

const arg = (name: string, def: number): number => {
  const m = process.argv.find((a) => a.startsWith(`--${name}=`));
  return m ? Number(m.split('=')[1]) : def;
};
type Stack = Awaited<ReturnType<typeof benchStack>>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

/** New items: half more coverage of seeded stories of the last 72 hours (another host), half new stories. */
function newItems(n: number, seeded: SeedItem[], round: string, rand: () => number) {
  const recent = seeded.filter((s) => s.at.getTime() > Date.now() - 72 * 3600_000);
  const { headlines, names } = corpus();
  return Array.from({ length: n }, (_, i) => {
    const title =
      i % 2 === 0 && recent.length > 0
        ? recent[Math.floor(rand() * recent.length)]!.title
        : `${names[Math.floor(rand() * names.length)]} ${names[Math.floor(rand() * names.length)]}: ${headlines[Math.floor(rand() * headlines.length)]}`;
    const host = `fresh${Math.floor(rand() * 50)}.example`;
    return { host, url: `https://${host}/${round}/${i}`, title };
  });
}

async function waitAssigned(stack: Stack, ids: number[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM wire_items WHERE id = ANY(${ids}::int[]) AND story_id IS NOT NULL`.execute(stack.db);
    if (r.rows[0]!.n >= ids.length) return;
    if (Date.now() > until) throw new Error(`only ${r.rows[0]!.n} of ${ids.length} assigned in time`);
    await sleep(20);
  }
}

async function burst(stack: Stack, seeded: SeedItem[], n: number, round: number): Promise<{ assign: number; ping: number }> {
  const items = newItems(n, seeded, `b${round}`, rng(100 + round));
  const now = new Date();
  const rows = await stack.db
    .insertInto('wire_items')
    .values(items.map((it) => ({ normalized_url: it.url, url: it.url, title: it.title, source_name: it.host, source_url: `https://${it.host}/feed`, ingested_at: now })))
    .returning('id')
    .execute();
  const ids = rows.map((r) => r.id);
  const q = stack.deps.queue.queue('story-assign');
  const t0 = performance.now();
  await q.addBulk(ids.map((id) => ({ name: 'story-assign', data: { kind: 'wire', id }, opts: { removeOnComplete: true, attempts: 8 } })));
  await waitAssigned(stack, ids, 600_000);
  const assign = n / ((performance.now() - t0) / 1000);
  const pq = stack.deps.queue.queue('ping');
  const before = (await pq.getJobCounts('completed')).completed ?? 0;
  const t1 = performance.now();
  await pq.addBulk(ids.map((id) => ({ name: 'ping', data: { token: `p${id}` }, opts: { removeOnComplete: false } })));
  for (;;) {
    if (((await pq.getJobCounts('completed')).completed ?? 0) - before >= n) break;
    await sleep(20);
  }
  return { assign, ping: n / ((performance.now() - t1) / 1000) };
}

/** Reads the event stream from now on, recording when each news.tsunami arrives. */
function watchStream(stack: Stack, seen: Map<number, number>): { stop(): void } {
  const reader = stack.deps.redis.duplicate();
  let running = true;
  void (async () => {
    let last = '$';
    while (running) {
      const r = (await reader.xread('BLOCK', 200, 'STREAMS', stack.deps.events.streamKey, last)) as [string, [string, string[]][]][] | null;
      for (const [, entries] of r ?? []) {
        for (const [id, fields] of entries) {
          last = id;
          const e = JSON.parse(fields[1]!) as { type?: string; id?: number };
          if (e.type === 'news.tsunami' && typeof e.id === 'number' && !seen.has(e.id)) seen.set(e.id, performance.now());
        }
      }
    }
    reader.disconnect();
  })();
  return { stop: () => (running = false) };
}

async function steady(stack: Stack, seeded: SeedItem[], rate: number, seconds: number, round: number) {
  const items = newItems(rate * seconds, seeded, `s${round}`, rng(200 + round));
  const committed = new Map<number, number>();
  const readable = new Map<number, number>();
  const relayed = new Map<number, number>();
  const source = await addSource(stack.db, { name: `Bench ${round}`, url: `https://bench${round}.example/feed` });
  const watcher = watchStream(stack, relayed);
  let polling = true;
  const poller = (async () => {
    while (polling || readable.size < committed.size) {
      const pending = [...committed.keys()].filter((id) => !readable.has(id));
      if (pending.length > 0) {
        const r = await sql<{ id: number }>`SELECT id FROM wire_items WHERE id = ANY(${pending}::int[]) AND story_id IS NOT NULL`.execute(stack.db);
        const t = performance.now();
        for (const row of r.rows) readable.set(row.id, t);
      }
      await sleep(10);
    }
  })();
  const t0 = performance.now();
  for (let i = 0; i < items.length; i++) {
    await sleep(Math.max(0, t0 + (i * 1000) / rate - performance.now()));
    const it = items[i]!;
    const { created } = await ingestItems(
      stack.db,
      { id: source.id, name: source.name, url: source.url },
      [{ normalizedUrl: it.url, url: it.url, title: it.title, summary: null, guid: null, publishedAt: null }],
      new Date(),
    );
    committed.set(created[0]!.id, performance.now());
  }
  polling = false;
  await poller;
  await sleep(500);
  watcher.stop();
  const story = [...committed].map(([id, t]) => readable.get(id)! - t);
  const relay = [...committed].filter(([id]) => relayed.has(id)).map(([id, t]) => relayed.get(id)! - t);
  return { p50: pct(story, 50), p99: pct(story, 99), relayP50: pct(relay, 50), relayP99: pct(relay, 99) };
}

async function feedCost(stack: Stack): Promise<{ plain: number; collapsed: number }> {
  const server = http.createServer(koaListener(createApp(stack.deps))).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const time = async (path: string) => {
    const t = performance.now();
    const res = await fetch(origin + path);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return performance.now() - t;
  };
  const plain: number[] = [];
  const collapsed: number[] = [];
  for (let p = 1; p <= 10; p++) {
    plain.push(await time(`/api/v1/news/?page=${p}&per_page=20`));
    collapsed.push(await time(`/api/v1/news/?page=${p}&per_page=20&collapse=story`));
  }
  server.close();
  return { plain: median(plain)!, collapsed: median(collapsed)! };
}

export async function storiesLoad(): Promise<void> {
  const n = arg('items', 200_000);
  const stack = await benchStack('stories', { WIRE_PROMOTE_MIN_SOURCES: '0' });
  try {
    const t = performance.now();
    const { stories, items } = await seedStoriesLoad(stack.db, n, Date.now());
    benchLog(`seeded ${n} items in ${stories} stories in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const env = {
      DATABASE_URL: stack.config.DATABASE_URL,
      REDIS_URL: stack.config.REDIS_URL,
      QUEUE_PREFIX: stack.config.QUEUE_PREFIX,
      JWT_SECRET: 'b'.repeat(40),
      LOG_LEVEL: 'warn',
      WIRE_PROMOTE_MIN_SOURCES: '0',
    };
    const worker = startProcfileType('worker', env, { echo: 'stderr' });
    const warm = await stack.deps.queue.enqueueAndWait('ping', { token: 'warm-up' }, 60_000);
    if (warm.state !== 'completed') throw new Error('the worker did not start');
    const bursts = [];
    for (let r = 0; r < 3; r++) bursts.push(await burst(stack, items, arg('burst', 3000), r));
    const steadies = [];
    for (let r = 0; r < 3; r++) steadies.push(await steady(stack, items, arg('rate', 50), arg('seconds', 20), r));
    const feed = await feedCost(stack);
    await worker.stop();
    report(n, stories, bursts, steadies, feed);
  } finally {
    await stack.close();
  }
}

function report(
  n: number,
  stories: number,
  bursts: { assign: number; ping: number }[],
  steadies: Awaited<ReturnType<typeof steady>>[],
  feed: { plain: number; collapsed: number },
): void {
  const m = (xs: number[]) => median(xs)!;
  const assign = m(bursts.map((b) => b.assign));
  const ping = m(bursts.map((b) => b.ping));
  console.log(`${n} items (articles and wire items) in ${stories} stories over 30 days; one worker process (src/bin/worker.ts)\n`);
  console.log(`burst, ${arg('burst', 3000)} wire items (median of 3): ${assign.toFixed(0)} items/s assigned  [goal >= 300]`);
  console.log(`  baseline, the same worker running ping jobs: ${ping.toFixed(0)} jobs/s; ratio ${(assign / ping).toFixed(2)}`);
  console.log(`  runs: ${bursts.map((b) => `${b.assign.toFixed(0)} / ${b.ping.toFixed(0)}`).join(', ')}`);
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  console.log(`\nsteady ${arg('rate', 50)} items/s for ${arg('seconds', 20)} s (median of 3 runs), commit -> story_id readable:`);
  console.log(`  p50 ${ms(m(steadies.map((s) => s.p50)))}, p99 ${ms(m(steadies.map((s) => s.p99)))}  [goal p99 <= 1000 ms]`);
  console.log(`  baseline, commit -> news.tsunami on the event stream: p50 ${ms(m(steadies.map((s) => s.relayP50)))}, p99 ${ms(m(steadies.map((s) => s.relayP99)))}`);
  console.log(`  ratio of p99s ${(m(steadies.map((s) => s.p99)) / m(steadies.map((s) => s.relayP99))).toFixed(2)}; runs p99: ${steadies.map((s) => ms(s.p99)).join(', ')}`);
  console.log(
    `\nGET /api/v1/news/ pages 1-10, cache misses, median: plain ${ms(feed.plain)}, collapse=story ${ms(feed.collapsed)}; ratio ${(feed.collapsed / feed.plain).toFixed(2)}`,
  );
}
