/**
 * The database-backed part of `npm run bench:assets -- --speed` (own PostgreSQL and Redis, seed
 * registry from the migration):
 *  - the page-title job (jobs/page-title.ts: fetch a local page, extract the title, store it) per
 *    article, without and with tagging the new headline as the asset-tag job then does
 *    (tagArticle), alternating item by item in the same run: medians and their ratio;
 *  - GET /api/v1/assets/{id}/ with its mindshare stored by the asset-mindshare job: p50/p99 from a
 *    client process (closed loop), beside GET /api/v1/bench/ping on a bare Koa app as the floor.
 * The pages are generated: a real headline from the labelled set as <title>, with about 40 KB of
 * filler paragraphs (a typical news page's size); only the title is read.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { createApp } from '../../src/app.js';
import { refreshMindshare, sharedRegistry, tagArticle } from '../../src/assets/index.js';
import { job as pageTitleJob } from '../../jobs/page-title.js';
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

/** Per article: the page-title job alone, or the job then tagging its headline; alternating, same run. */
async function pageTitleOverhead(stack: BenchStack, titles: string[], n: number): Promise<void> {
  const pages = await pageServer(titles);
  const ids = await insertProvisional(stack, pages.origin, n);
  await sharedRegistry.tagger(stack.db);
  const ctx = { attempt: 1, jobId: 'bench' };
  const jobDeps = { ...stack.deps, enqueue: stack.deps.queue.enqueuer };
  const plain: number[] = [];
  const tagged: number[] = [];
  for (const [i, id] of ids.entries()) {
    const t0 = performance.now();
    const out = await pageTitleJob.run({ article_id: id }, jobDeps, ctx);
    if (!out.updated) throw new Error(`page-title did not update article ${id}`);
    if (i % 2 === 1) await tagArticle(stack.db, sharedRegistry, id);
    (i % 2 === 1 ? tagged : plain).push(performance.now() - t0);
  }
  pages.server.close();
  const [a, b] = [median(plain.slice(20)), median(tagged.slice(20))];
  console.log(`page-title job, ${plain.length} + ${tagged.length} articles alternating (first 20 of each left out as warm-up):`);
  console.log(`  without tagging: median ${a.toFixed(2)} ms`);
  console.log(`  with tagging:    median ${b.toFixed(2)} ms (${((b / a - 1) * 100).toFixed(1)}% more)`);
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
  const page = await loadFromChild(`${app.origin}/api/v1/assets/bitcoin/`, seconds, 4);
  if (page.errors || Object.keys(page.statuses).some((s) => s !== '200')) throw new Error(`asset page answered ${JSON.stringify(page.statuses)}`);
  console.log(`asset page GET /api/v1/assets/bitcoin/ (mindshare of ${stored.assets} assets stored), closed loop, 4 connections, ${seconds} s:`);
  console.log(`  floor (bare Koa ping): p50 ${ping.p50.toFixed(2)} ms, p99 ${ping.p99.toFixed(2)} ms, ${Math.round(ping.rps)} req/s`);
  console.log(`  asset page:            p50 ${page.p50.toFixed(2)} ms, p99 ${page.p99.toFixed(2)} ms, ${Math.round(page.rps)} req/s`);
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
