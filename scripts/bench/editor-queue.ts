/**
 * Editors' console benchmark: GET /editor/ with 500 waiting items, rendered server-side,
 * goal p99 < 100 ms. Data: 5,000 approved articles (what provenance matches against), 500
 * submissions waiting (tags, token symbols, submitters of every account type, a fifth of them
 * promoted wire items), one editor. Every waiting item's provenance verdict is in the cache (the
 * state after the desk has been open a while: the biggest page), then measured again with an
 * empty cache ("checking…" rows).
 * Each figure: a closed-loop client in its own process, one request at a time for 5 s, three runs,
 * the median of the three p50s and p99s. Baseline in the same command: /editor/modlog/ (same
 * sign-in check, same page shell, no queue). Also counts provenance lookups made while serving the
 * queue page (must be 0: the page only reads the cache).
 * Starts its own Postgres/Redis unless DATABASE_URL/REDIS_URL are set.
 *   npm run bench:editor [-- waiting=500]
 */
import http from 'node:http';
import { sql } from 'kysely';
import { createApp } from '../../src/app.js';
import { signAccessToken } from '../../src/identity/tokens.js';
import { EditorProvenance } from '../../src/editor/provenance-cache.js';
import { queueIds, queueItems } from '../../src/editor/queue-queries.js';
import { queuePage } from '../../src/editor/render.js';
import { benchStack, median } from './lib/bench-stack.js';
import { loadFromChild, type LoadResult } from './lib/load.js';
import { koaListener } from '../../src/platform/http/listener.js';

const WAITING = Number(
  process.argv
    .slice(2)
    .find((a) => a.startsWith('waiting='))
    ?.split('=')[1] ?? 500,
);
const APPROVED = 5000;
const log = (l: string) => console.error(`[bench] ${l}`);

async function measure(url: string, headers: Record<string, string>): Promise<{ p50: number; p99: number; runs: LoadResult[] }> {
  await loadFromChild(url, 1, 1, headers); // warm-up
  const runs: LoadResult[] = [];
  for (let i = 0; i < 3; i++) runs.push(await loadFromChild(url, 5, 1, headers));
  const bad = runs.flatMap((r) => Object.keys(r.statuses).filter((s) => s !== '200'));
  if (bad.length) throw new Error(`${url}: statuses ${bad.join(', ')}`);
  return { p50: median(runs.map((r) => r.p50)), p99: median(runs.map((r) => r.p99)), runs };
}
const fmt = (m: { p50: number; p99: number; runs: LoadResult[] }) =>
  `p50 ${m.p50.toFixed(1)} ms, p99 ${m.p99.toFixed(1)} ms (median of 3; p99 per run ${m.runs.map((r) => r.p99.toFixed(1)).join(' / ')} ms; ${m.runs.map((r) => r.requests).join(' / ')} requests)`;

const stack = await benchStack('editor', {
  QUEUE_PREFIX: `benched${process.pid}`,
  LOG_LEVEL: 'silent',
  NODE_ENV: 'development',
  EDITOR_QUEUE_LIMIT: String(Math.max(500, WAITING)),
});
try {
  const { deps, db, config } = stack;

  log(`generating ${APPROVED} approved articles and ${WAITING} waiting items`);
  await sql`
    INSERT INTO users (wallet_address, account_type, roles, username)
    SELECT '0x' || lpad(to_hex(g), 40, '0'), (ARRAY['human', 'cyborg', 'bot'])[1 + g % 3], CASE WHEN g = 1 THEN ARRAY['editor'] ELSE '{}' END,
           CASE WHEN g % 4 = 0 THEN NULL ELSE 'user_' || g END
    FROM generate_series(1, 200) g`.execute(db);
  const words = ['Ethereum', 'Solana', 'Uniswap', 'Aave', 'Bitcoin', 'Arbitrum', 'Lido', 'Maker', 'Curve', 'Base'];
  const verbs = ['ships upgrade', 'pauses withdrawals', 'votes on treasury plan', 'hits record volume', 'patches bug', 'launches token'];
  await sql`
    INSERT INTO articles (slug, headline, url, normalized_url, status, submitted_by, created_at, published_at, tags, token_symbols)
    SELECT 'p' || g, (${words}::text[])[1 + g % 10] || ' ' || (${verbs}::text[])[1 + g % 6] || ' in week ' || (g % 52),
           'https://published.example/' || g, 'https://published.example/' || g, 'approved', 2 + g % 199,
           now() - make_interval(mins => g), now() - make_interval(mins => g), ARRAY['defi'], ARRAY[upper((${words}::text[])[1 + g % 10])]
    FROM generate_series(1, ${APPROVED}::int) g`.execute(db);
  await sql`
    INSERT INTO articles (slug, headline, url, normalized_url, status, origin, source, submitted_by, created_at, tags, token_symbols, token_addresses)
    SELECT 'q' || g, (${words}::text[])[1 + g % 10] || ' ' || (${verbs}::text[])[1 + (g * 7) % 6] || ' says report ' || g,
           'https://waiting' || (g % 40) || '.example/story/' || g || '?ref=feed', 'https://waiting' || (g % 40) || '.example/story/' || g,
           'submitted', CASE WHEN g % 5 = 0 THEN 'tsunami' ELSE 'manual' END, CASE WHEN g % 5 = 0 THEN 'Wire ' || (g % 7) ELSE 'waiting' || (g % 40) || '.example' END,
           CASE WHEN g % 5 = 0 THEN NULL ELSE 2 + g % 199 END, now() - make_interval(secs => g * 30),
           ARRAY['defi', 'tag' || (g % 9)], ARRAY[upper((${words}::text[])[1 + g % 10]), 'USDC'], ARRAY['0x' || lpad(to_hex(g), 40, '0')]
    FROM generate_series(1, ${WAITING}::int) g`.execute(db);
  await sql`VACUUM ANALYZE`.execute(db);

  const redis = deps.redis;
  // Server-side time of each request (every middleware and the handler, up to the body being
  // ready; the socket transfer to the client is not included), by path.
  const serverMs = new Map<string, number[]>();
  const timedApp = () => {
    const app = createApp(deps);
    app.middleware.unshift(async (ctx, next) => {
      const t = performance.now();
      await next();
      const list = serverMs.get(ctx.path) ?? [];
      list.push(performance.now() - t);
      serverMs.set(ctx.path, list);
    });
    return koaListener(app);
  };
  const takeServer = (p: string) => {
    const xs = (serverMs.get(p) ?? []).sort((a, b) => a - b);
    serverMs.set(p, []);
    const qq = (f: number) => xs[Math.min(xs.length - 1, Math.floor(f * xs.length))] ?? 0;
    return `server-side p50 ${qq(0.5).toFixed(1)} ms, p99 ${qq(0.99).toFixed(1)} ms over ${xs.length} requests`;
  };
  const server = http.createServer(timedApp());
  const base = await new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
  const token = await signAccessToken(config.JWT_SECRET, { userId: 1, address: '0x' + '1'.padStart(40, '0'), roles: ['editor'] });
  const headers = { cookie: `access_token=${token}` };

  // Fill the provenance cache for every waiting item (what the desk does as items are viewed).
  const prov = new EditorProvenance(deps);
  const { items } = await queueItems(db, WAITING);
  const t0 = performance.now();
  for (const i of items) await prov.get(i, 10_000);
  log(`provenance for ${items.length} items: ${((performance.now() - t0) / items.length).toFixed(1)} ms per lookup`);
  const cachedStates = await prov.peek(items.map((i) => i.id));
  const done = [...cachedStates.values()].filter((s) => s.state === 'done').length;
  const withMatches = [...cachedStates.values()].filter((s) => s.state === 'done' && s.result.matches.length > 0).length;

  const page = await fetch(`${base}/editor/`, { headers });
  const html = await page.text();
  const rows = (html.match(/<li class="item"/g) ?? []).length;
  if (page.status !== 200 || rows !== WAITING) throw new Error(`queue page: status ${page.status}, ${rows} rows`);

  // Where the time goes, in this process (median of 20): the query, the cache read, the rendering.
  const part = async (fn: () => Promise<unknown> | unknown) => {
    const xs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await fn();
      xs.push(performance.now() - t);
    }
    return median(xs).toFixed(1);
  };
  const q = await queueItems(db, WAITING);
  const cache = await prov.peek(q.items.map((i) => i.id));
  const fresh = () => new EditorProvenance(deps).peek(q.items.map((i) => i.id));
  console.log(
    `parts (median of 20, in process): ids query ${await part(() => queueIds(db, WAITING))} ms, full rows query (first render) ${await part(() => queueItems(db, WAITING))} ms, cache read from Redis ${await part(fresh)} ms (then remembered in process: ${await part(() => prov.peek(q.items.map((i) => i.id)))} ms), render of every row (first render; later requests reuse rows) ${await part(() => queuePage(q.items, q.total, cache, Date.now()))} ms`,
  );

  const lookupsBefore = prov.lookups;
  serverMs.clear();
  const baseline = await measure(`${base}/editor/modlog/`, headers);
  const baselineServer = takeServer('/editor/modlog/');
  const warm = await measure(`${base}/editor/`, headers);
  const warmServer = takeServer('/editor/');
  // Empty cache, in a freshly started app (no verdicts remembered in process either).
  await redis.del(...items.map((i) => `${config.QUEUE_PREFIX}:editor:prov:${i.id}`));
  const server2 = http.createServer(timedApp());
  const base2 = await new Promise<string>((resolve) => server2.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server2.address() as { port: number }).port}`)));
  const cold = await measure(`${base2}/editor/`, headers);
  const coldServer = takeServer('/editor/');
  const coldKeys = await redis.exists(...items.map((i) => `${config.QUEUE_PREFIX}:editor:prov:${i.id}`));
  server2.close();

  console.log(
    `data: ${APPROVED} approved articles, ${WAITING} waiting items (${items.filter((i) => i.origin === 'tsunami').length} wire items); ${done} verdicts cached, ${withMatches} with matches; page ${(html.length / 1024).toFixed(0)} KiB, ${rows} rows`,
  );
  console.log(`GET /editor/modlog/ (baseline: sign-in check + shell): ${baselineServer}; client ${fmt(baseline)}`);
  console.log(`GET /editor/ ${WAITING} items, every verdict cached:      ${warmServer}; client ${fmt(warm)}`);
  console.log(`GET /editor/ ${WAITING} items, empty cache, fresh app:    ${coldServer}; client ${fmt(cold)}`);
  const p99Of = (line: string) => Number(/p99 ([\d.]+) ms/.exec(line)![1]);
  console.log(
    `queue page server-side p99: ${p99Of(warmServer).toFixed(1)} ms cached, ${p99Of(coldServer).toFixed(1)} ms empty cache (baseline ${p99Of(baselineServer).toFixed(1)} ms); goal < 100 ms: ${p99Of(warmServer) < 100 && p99Of(coldServer) < 100 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `provenance lookups while serving the queue page: ${prov.lookups - lookupsBefore} in this process; cache keys after the empty-cache runs: ${coldKeys} (the page only reads)`,
  );

  server.close();
} finally {
  await stack.close();
}
process.exit(0);
