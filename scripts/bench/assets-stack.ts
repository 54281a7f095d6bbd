/**
 * The database-backed part of `npm run bench:assets -- --speed` (own PostgreSQL and Redis, seed
 * registry from the migration):
 *  - the page-title job (jobs/page-title.ts: fetch a local page, extract the title, store it) per
 *    article, without tagging, with tagging (the new headline tagged and written with its tags by
 *    one statement, as the job runs) and without tagging followed by the asset-tag job's tagArticle,
 *    in turn item by item in the same run: medians, their ratio to the first, the median of each
 *    article's difference to the baseline article just before it, and PostgreSQL round trips per
 *    article;
 *  - GET /api/v1/assets/{id}/ with its mindshare stored by the asset-mindshare job: p50/p99 from a
 *    client process (closed loop), beside GET /api/v1/bench/ping on a bare Koa app as the floor.
 * The pages are generated: a real headline from the labelled set as <title>, with about 40 KB of
 * filler paragraphs (a typical news page's size); only the title is read.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { createApp } from '../../src/app.js';
import { refreshMindshare, sharedRegistry, tagArticle } from '../../src/assets/index.js';
import { runPageTitle } from '../../jobs/page-title.js';
import { bareApp, benchStack, listenLocal, median } from './lib/bench-stack.js';
import { loadFromChild } from './lib/load.js';

type BenchStack = Awaited<ReturnType<typeof benchStack>>;

const FILLER = `<p>${'Markets moved on the news as traders weighed the figures. '.repeat(12)}</p>\n`.repeat(55);

function pageServer(titles: string[]): Promise<{ origin: string; server: http.Server }> {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return new Promise((resolve) => {
    const server = http
      .createServer((req, res) => {
        const i = Number(req.url!.split('/').pop()) % titles.length;
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`<!doctype html><html><head><title>${esc(titles[i])} | Example News</title></head><body>${FILLER}</body></html>`);
      })
      .listen(0, '127.0.0.1', () => resolve({ origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }));
  });
}

async function insertProvisional(stack: BenchStack, origin: string, n: number): Promise<number[]> {
  const r = await sql<{ id: number }>`
    INSERT INTO articles (slug, headline, headline_source, url, normalized_url, source, status)
    SELECT 'bench-' || g, 'provisional ' || g, 'provisional', ${origin} || '/p/' || g, ${origin} || '/p/' || g, 'example.com', 'submitted'
      FROM generate_series(1, ${n}) g RETURNING id`.execute(stack.db);
  return r.rows.map((x) => x.id).sort((a, b) => a - b);
}

/** Counts the PostgreSQL round trips (every query a pg client sends, BEGIN and COMMIT included). */
function roundTripCounter(): { take(): number; restore(): void } {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  let n = 0;
  proto.query = function (this: unknown, ...args: unknown[]) {
    n++;
    return original.apply(this, args);
  };
  return {
    take: () => {
      const v = n;
      n = 0;
      return v;
    },
    restore: () => void (proto.query = original),
  };
}

const VARIANTS = ['without tagging', 'with tagging', 'then asset-tag'] as const;
const WARM_UP = 10;

/**
 * The extra time of a variant as the median of its difference to the baseline's run just before it
 * (the same few milliseconds of machine load), over the baseline's median: steadier than the ratio
 * of the two medians on a shared machine.
 */
function pairedMore(base: number[], other: number[]): number {
  const diffs = other.slice(WARM_UP).map((t, i) => t - base[WARM_UP + i]);
  return (median(diffs) / median(base.slice(WARM_UP))) * 100;
}

/**
 * Per article, in turn: the page-title job without tagging (the baseline), the job as it runs
 * (the new headline written with its tags by one statement), and the job without tagging followed by
 * tagArticle (what the asset-tag job does for the other triggers); same run, same pages.
 */
async function pageTitleOverhead(stack: BenchStack, titles: string[], n: number): Promise<void> {
  const pages = await pageServer(titles);
  const ids = await insertProvisional(stack, pages.origin, n);
  await sharedRegistry.tagger(stack.db);
  const jobDeps = { ...stack.deps, enqueue: stack.deps.queue.enqueuer };
  const ms: number[][] = VARIANTS.map(() => []);
  const trips: number[][] = VARIANTS.map(() => []);
  const counter = roundTripCounter();
  try {
    for (const [i, id] of ids.entries()) {
      const v = i % VARIANTS.length;
      counter.take();
      const t0 = performance.now();
      const out = await runPageTitle({ article_id: id }, jobDeps, v === 1);
      if (!out.updated) throw new Error(`page-title did not update article ${id}`);
      if (v === 2) await tagArticle(stack.db, sharedRegistry, id);
      ms[v].push(performance.now() - t0);
      trips[v].push(counter.take());
    }
  } finally {
    counter.restore();
  }
  pages.server.close();
  const med = ms.map((m) => median(m.slice(WARM_UP)));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`page-title job, ${ids.length} articles in turn over ${VARIANTS.length} variants (first ${WARM_UP} of each left out as warm-up):`);
  for (const [v, name] of VARIANTS.entries()) {
    const pct = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;
    const more = v === 0 ? '' : ` (${pct((med[v] / med[0] - 1) * 100)}, paired ${pct(pairedMore(ms[0], ms[v]))})`;
    console.log(`  ${name.padEnd(16)} median ${med[v].toFixed(2)} ms${more}, PostgreSQL round trips per article: median ${median(trips[v])}, mean ${mean(trips[v]).toFixed(2)}`);
  }
}

async function assetPageLatency(stack: BenchStack, seconds: number): Promise<void> {
  await sql`
    INSERT INTO article_assets (article_id, asset_id, salience, source)
    SELECT a.id, (ARRAY['bitcoin', 'ethereum', 'solana'])[1 + a.id % 3], 0.8, 'worker' FROM articles a
    ON CONFLICT DO NOTHING`.execute(stack.db);
  await sql`UPDATE articles SET status = 'approved', published_at = now() - (id % 600) * interval '1 hour'`.execute(stack.db);
  const stored = await refreshMindshare(stack.db, stack.deps.redis, stack.config.QUEUE_PREFIX);
  const app = await listenLocal(createApp(stack.deps), { keepAliveTimeoutMs: 60_000 });
  const floor = await listenLocal(bareApp(stack.deps.log), { keepAliveTimeoutMs: 60_000 });
  const ping = await loadFromChild(`${floor.origin}/api/v1/bench/ping`, seconds, 4);
  const counter = roundTripCounter();
  const page = await loadFromChild(`${app.origin}/api/v1/assets/bitcoin/`, seconds, 4);
  const pageTrips = counter.take();
  counter.restore();
  if (page.errors || Object.keys(page.statuses).some((s) => s !== '200')) throw new Error(`asset page answered ${JSON.stringify(page.statuses)}`);
  console.log(`asset page GET /api/v1/assets/bitcoin/ (mindshare of ${stored.assets} assets stored), closed loop, 4 connections, ${seconds} s:`);
  console.log(`  floor (bare Koa ping): p50 ${ping.p50.toFixed(2)} ms, p99 ${ping.p99.toFixed(2)} ms, ${Math.round(ping.rps)} req/s`);
  console.log(
    `  asset page:            p50 ${page.p50.toFixed(2)} ms, p99 ${page.p99.toFixed(2)} ms, ${Math.round(page.rps)} req/s; PostgreSQL round trips: ${pageTrips} for ${page.requests} requests`,
  );
  app.server.close();
  floor.server.close();
}

export async function stackSpeed(titles: string[], opts: { pages: number; seconds: number }): Promise<void> {
  const stack = await benchStack('assets', { OUTBOUND_ALLOW_PRIVATE: 'true' });
  try {
    await pageTitleOverhead(stack, titles, opts.pages);
    await assetPageLatency(stack, opts.seconds);
  } finally {
    await stack.close();
  }
}
